"""Spatial resampling: ``flow.nn.PixelShuffle``/``PixelShufflev2`` (sub-pixel rearrangement
of NCHW channels) and ``flow.layers.upsample_2d`` (nearest or bilinear resizing by
integer-or-float factors, OneFlow's/PyTorch's sampling).
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from ..graph import Blob, apply_op
from ._modes import DataFormat, Interpolation
from ._util import check_name, fail, layer_name, require_blob


def _nearest_matrix(n_in: int, n_out: int, scale: float) -> np.ndarray:
    src = np.minimum(np.floor((np.arange(n_out) + 0.5) / scale).astype(np.int64), n_in - 1)
    m = np.zeros((n_out, n_in))
    m[np.arange(n_out), src] = 1.0
    return m


def _bilinear_matrix(n_in: int, n_out: int, scale: float, align_corners: bool) -> np.ndarray:
    dst = np.arange(n_out, dtype=np.float64)
    if align_corners:
        src = dst * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)
    else:
        src = np.maximum((dst + 0.5) / scale - 0.5, 0.0)
    low = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    high = np.minimum(low + 1, n_in - 1)
    frac = src - np.floor(src)
    m = np.zeros((n_out, n_in))
    np.add.at(m, (np.arange(n_out), low), 1.0 - frac)
    np.add.at(m, (np.arange(n_out), high), frac)
    return m


def _lower_upsample(x, *, rows, cols):
    y = jnp.einsum("oh,nchw->ncow", jnp.asarray(rows, x.dtype), x)
    return jnp.einsum("pw,ncow->ncop", jnp.asarray(cols, x.dtype), y)


def upsample_2d(
    x: Blob,
    size: Any = (2, 2),
    align_corners: bool = False,
    data_format: str = "NCHW",
    interpolation: str = "nearest",
    name: str | None = None,
) -> Blob:
    """Resizes H and W by the factors ``size`` (an int or two numbers): output size is
    ``int(in * factor)``. "nearest" picks ``floor((o + 0.5) / factor)``; "bilinear" samples
    at ``(o + 0.5) / factor - 0.5`` (or corner-aligned with ``align_corners``)."""
    public = "flow.layers.upsample_2d"
    check_name(public, name)
    name = layer_name(name, "Upsample2D")
    require_blob(public, x, "x", name)
    scales = (size, size) if isinstance(size, (int, float)) else tuple(size)
    if len(scales) != 2 or not all(isinstance(s, (int, float)) and s > 0 for s in scales):
        fail(public, f"size must be a positive number or two of them, got {size!r}", name)
    mode = Interpolation.lookup(interpolation)
    if mode is None:
        fail(public, f'interpolation must be "nearest" or "bilinear", got {interpolation!r}', name)
    if mode == Interpolation.NEAREST and align_corners:
        fail(public, 'interpolation "nearest" does not support align_corners', name)
    fmt = DataFormat.lookup(data_format, upper=True)
    if fmt not in (DataFormat.NCHW, DataFormat.NHWC) or x.ndim != 4:
        fail(
            public,
            f"x must be 4-D NCHW or NHWC, got {x.shape} with data_format {data_format!r}",
            name,
        )
    if not x.dtype.is_floating:
        fail(public, f"needs a floating point input, got {x.dtype.name}", name)
    h, w = (x.shape[2], x.shape[3]) if fmt is DataFormat.NCHW else (x.shape[1], x.shape[2])
    outs = (int(h * scales[0]), int(w * scales[1]))
    if mode == Interpolation.NEAREST:
        rows, cols = (_nearest_matrix(n, o, s) for n, o, s in zip((h, w), outs, scales))
    else:
        rows, cols = (
            _bilinear_matrix(n, o, s, align_corners) for n, o, s in zip((h, w), outs, scales)
        )
    attrs = {"rows": rows, "cols": cols}
    if fmt is DataFormat.NHWC:
        return apply_op("upsample", _lower_upsample_nhwc, [x], attrs=attrs, name=name)
    return apply_op("upsample", _lower_upsample, [x], attrs=attrs, name=name)


def _lower_upsample_nhwc(x, *, rows, cols):
    return _lower_upsample(x.transpose(0, 3, 1, 2), rows=rows, cols=cols).transpose(0, 2, 3, 1)


def _lower_pixel_shuffle(x, *, rh, rw):
    b, c, h, w = x.shape
    y = x.reshape(b, c // (rh * rw), rh, rw, h, w).transpose(0, 1, 4, 2, 5, 3)
    return y.reshape(b, c // (rh * rw), h * rh, w * rw)


def PixelShufflev2(
    input: Blob,
    h_upscale_factor: int,
    w_upscale_factor: int,  # noqa: A002, N802
    name: str | None = None,
) -> Blob:
    """(B, C * rh * rw, H, W) -> (B, C, H * rh, W * rw):
    ``out[b, c, h*rh + i, w*rw + j] = in[b, c*rh*rw + i*rw + j, h, w]``."""
    public = "flow.nn.PixelShufflev2"
    check_name(public, name)
    require_blob(public, input, "input", name)
    rh, rw = int(h_upscale_factor), int(w_upscale_factor)
    if input.ndim != 4 or rh < 1 or rw < 1 or input.shape[1] % (rh * rw):
        fail(
            public,
            f"needs an NCHW input whose channels divide by {rh} * {rw}, got shape {input.shape}",
            name,
        )
    return apply_op(
        "pixel_shuffle",
        _lower_pixel_shuffle,
        [input],
        attrs={"rh": rh, "rw": rw},
        name=name,
        prefix="PixelShuffle",
    )


def PixelShuffle(
    input: Blob,
    upscale_factor: int,  # noqa: A002, N802
    name: str | None = None,
) -> Blob:
    """(B, C * r * r, H, W) -> (B, C, H * r, W * r)."""
    return PixelShufflev2(input, upscale_factor, upscale_factor, name)
