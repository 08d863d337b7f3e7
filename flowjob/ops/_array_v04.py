"""OneFlow v0.4 array ops beyond the core set: ``flow.diag``, ``flow.math.tril``,
``flow.math.fused_scale_tril``, ``flow.masked_fill``, ``flow.reverse``, ``flow.range``,
``flow.expand``, ``flow.nn.PixelShuffle(v2)``."""

from __future__ import annotations

from collections.abc import Sequence

import jax.numpy as jnp

from .. import _dtypes
from ..graph import Blob, apply_op
from ._util import broadcast_shape, check_name, fail, norm_axes, require_blob


def _lower_diag(x, *, diagonal):
    return jnp.diag(x, k=diagonal)


def diag(input: Blob, diagonal: int = 0, name: str | None = None) -> Blob:  # noqa: A002
    """A vector gives the square matrix with it on diagonal ``diagonal``; a matrix gives that
    diagonal as a vector (above the main one for ``diagonal > 0``, below for ``< 0``)."""
    public = "flow.diag"
    check_name(public, name)
    require_blob(public, input, "input", name)
    if input.ndim not in (1, 2):
        fail(public, f"needs a vector or a matrix, got shape {input.shape}", name)
    return apply_op("diag", _lower_diag, [input], attrs={"diagonal": int(diagonal)},
                    name=name, prefix="Diag")


def _lower_tril(x, *, diagonal, fill_value, scale=1):
    if scale != 1:
        x = x * jnp.asarray(scale, x.dtype)
    rows, cols = x.shape[-2:]
    keep = jnp.tril(jnp.ones((rows, cols), bool), k=diagonal)
    return jnp.where(keep, x, jnp.asarray(fill_value, x.dtype))


def tril(x: Blob, diagonal: int = 0, fill_value: float = 0, name: str | None = None) -> Blob:
    """Keeps the lower triangle (up to diagonal ``diagonal``) of the last two axes and sets the
    rest to ``fill_value``."""
    public = "flow.math.tril"
    check_name(public, name)
    require_blob(public, x, "x", name)
    if x.ndim < 2:
        fail(public, f"needs at least 2 axes, got shape {x.shape}", name)
    return apply_op("tril", _lower_tril, [x],
                    attrs={"diagonal": int(diagonal), "fill_value": fill_value},
                    name=name, prefix="Tril")


def _lower_masked_fill(x, mask, *, value):
    return jnp.where(mask != 0, jnp.asarray(value, x.dtype), x)


def masked_fill(x: Blob, mask: Blob, value: float, name: str | None = None) -> Blob:
    """``value`` where ``mask`` is non-zero, ``x`` elsewhere (``x`` and ``mask`` broadcast)."""
    public = "flow.masked_fill"
    check_name(public, name)
    require_blob(public, x, "x", name)
    require_blob(public, mask, "mask", name)
    broadcast_shape(public, [x.shape, mask.shape], name)
    return apply_op("masked_fill", _lower_masked_fill, [x, mask], attrs={"value": value},
                    name=name, prefix="MaskedFill")


def _lower_reverse(x, *, axes):
    return jnp.flip(x, axis=axes)


def reverse(input: Blob, axis: int | Sequence[int], name: str | None = None) -> Blob:  # noqa: A002
    """The elements in reverse order along ``axis`` (an int or a list of ints)."""
    public = "flow.reverse"
    check_name(public, name)
    require_blob(public, input, "input", name)
    return apply_op("reverse", _lower_reverse, [input],
                    attrs={"axes": norm_axes(public, axis, input.ndim, name)},
                    name=name, prefix="Reverse")


def _lower_range(*, start, limit, delta, dtype):
    return jnp.arange(start, limit, delta, dtype=dtype)


def range(start: int, limit: int | None = None, delta: int = 1,  # noqa: A001
          dtype: _dtypes.DType | None = None, name: str | None = None) -> Blob:
    """``[start, start + delta, ...)`` below ``limit`` (``range(n)`` counts from 0); int64
    unless ``dtype`` says otherwise. The bounds are Python ints, as in OneFlow."""
    public = "flow.range"
    check_name(public, name)
    if limit is None:
        start, limit = 0, start
    for what, v in (("start", start), ("limit", limit), ("delta", delta)):
        if isinstance(v, bool) or not isinstance(v, int):
            fail(public, f"{what} must be an int, got {type(v).__name__}: {v!r}", name)
    if delta <= 0 or limit <= start:
        fail(public, f"needs start < limit and delta > 0, got start={start}, limit={limit}, "
                     f"delta={delta}", name)
    dt = _dtypes.int64 if dtype is None else _dtypes.as_dtype(dtype)
    return apply_op("range", _lower_range, [],
                    attrs={"start": start, "limit": limit, "delta": delta,
                           "dtype": dt.np_dtype}, name=name, prefix="Range")


def _lower_pixel_shuffle(x, *, rh, rw):
    b, c, h, w = x.shape
    y = x.reshape(b, c // (rh * rw), rh, rw, h, w).transpose(0, 1, 4, 2, 5, 3)
    return y.reshape(b, c // (rh * rw), h * rh, w * rw)


def PixelShufflev2(input: Blob, h_upscale_factor: int, w_upscale_factor: int,  # noqa: A002, N802
                   name: str | None = None) -> Blob:
    """(B, C * rh * rw, H, W) -> (B, C, H * rh, W * rw): sub-pixel rearrangement."""
    public = "flow.nn.PixelShufflev2"
    check_name(public, name)
    require_blob(public, input, "input", name)
    rh, rw = int(h_upscale_factor), int(w_upscale_factor)
    if input.ndim != 4 or rh < 1 or rw < 1 or input.shape[1] % (rh * rw):
        fail(public, f"needs an NCHW input whose channels {input.shape[1:2]} divide by "
                     f"{rh} * {rw}, got shape {input.shape}", name)
    return apply_op("pixel_shuffle", _lower_pixel_shuffle, [input],
                    attrs={"rh": rh, "rw": rw}, name=name, prefix="PixelShuffle")


def PixelShuffle(input: Blob, upscale_factor: int,  # noqa: A002, N802
                 name: str | None = None) -> Blob:
    """(B, C * r * r, H, W) -> (B, C, H * r, W * r)."""
    return PixelShufflev2(input, upscale_factor, upscale_factor, name)


def fused_scale_tril(x: Blob, diagonal: int = 0, fill_value: float = 0, scale: float = 1,
                     name: str | None = None) -> Blob:
    """``tril(x * scale, diagonal, fill_value)`` in one op."""
    public = "flow.math.fused_scale_tril"
    check_name(public, name)
    require_blob(public, x, "x", name)
    if x.ndim < 2:
        fail(public, f"needs at least 2 axes, got shape {x.shape}", name)
    return apply_op("fused_scale_tril", _lower_tril, [x],
                    attrs={"diagonal": int(diagonal), "fill_value": fill_value,
                           "scale": scale}, name=name, prefix="FusedScaleTril")


def _lower_expand(x, *, shape):
    return jnp.broadcast_to(x, shape)


def expand(x: Blob, expand_size: Sequence[int], name: str | None = None) -> Blob:
    """``x`` broadcast to ``expand_size``; -1 keeps a dimension, new ones go in front."""
    public = "flow.expand"
    check_name(public, name)
    require_blob(public, x, "x", name)
    size = list(expand_size)
    extra = len(size) - x.ndim
    if extra < 0 or any(s == -1 for s in size[:extra]):
        fail(public, f"expand_size {size} must have at least rank {x.ndim}, with no -1 in "
                     "the new leading dimensions", name)
    shape = tuple(x.shape[i - extra] if s == -1 else int(s) for i, s in enumerate(size))
    for i, d in enumerate(x.shape):
        if d != 1 and d != shape[i + extra]:
            fail(public, f"cannot expand dimension {i} of size {d} to {shape[i + extra]}", name)
    return apply_op("expand", _lower_expand, [x], attrs={"shape": shape}, name=name,
                    prefix="Expand")
