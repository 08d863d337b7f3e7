"""``flow.nn.PixelShuffle`` / ``PixelShufflev2``: sub-pixel rearrangement of NCHW channels."""

from __future__ import annotations

from ..graph import Blob, apply_op
from ._util import check_name, fail, require_blob


def _lower_pixel_shuffle(x, *, rh, rw):
    b, c, h, w = x.shape
    y = x.reshape(b, c // (rh * rw), rh, rw, h, w).transpose(0, 1, 4, 2, 5, 3)
    return y.reshape(b, c // (rh * rw), h * rh, w * rw)


def PixelShufflev2(input: Blob, h_upscale_factor: int, w_upscale_factor: int,  # noqa: A002, N802
                   name: str | None = None) -> Blob:
    """(B, C * rh * rw, H, W) -> (B, C, H * rh, W * rw):
    ``out[b, c, h*rh + i, w*rw + j] = in[b, c*rh*rw + i*rw + j, h, w]``."""
    public = "flow.nn.PixelShufflev2"
    check_name(public, name)
    require_blob(public, input, "input", name)
    rh, rw = int(h_upscale_factor), int(w_upscale_factor)
    if input.ndim != 4 or rh < 1 or rw < 1 or input.shape[1] % (rh * rw):
        fail(public, f"needs an NCHW input whose channels divide by {rh} * {rw}, got shape "
                     f"{input.shape}", name)
    return apply_op("pixel_shuffle", _lower_pixel_shuffle, [input],
                    attrs={"rh": rh, "rw": rw}, name=name, prefix="PixelShuffle")


def PixelShuffle(input: Blob, upscale_factor: int,  # noqa: A002, N802
                 name: str | None = None) -> Blob:
    """(B, C * r * r, H, W) -> (B, C, H * r, W * r)."""
    return PixelShufflev2(input, upscale_factor, upscale_factor, name)
