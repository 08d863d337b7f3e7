"""``flow.layers.prelu`` (a learned leaky slope) and ``flow.layers.upsample_2d`` (nearest or
bilinear resizing by integer-or-float factors, OneFlow's/PyTorch's sampling)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from ..graph import Blob, apply_op, broadcast, get_variable, namespace
from ._layers import _layer_name
from ._util import check_name, fail, require_blob
from .initializers import constant_initializer


def _lower_prelu(x, alpha):
    return jnp.where(x > 0, x, x * alpha)


def prelu(inputs: Blob, alpha_initializer: Any = None, alpha_regularizer: Any = None,
          shared_axes: Sequence[int] | None = None, trainable: bool = True,
          name: str | None = None, model_distribute: Any = None) -> Blob:
    """``x`` where positive, ``alpha * x`` elsewhere; the variable ``<name>-alpha`` has shape
    ``inputs.shape[1:]`` with size 1 on ``shared_axes`` (initialized to 0 by default)."""
    public = "flow.layers.prelu"
    check_name(public, name)
    name = _layer_name(name, "PRelu")
    require_blob(public, inputs, "inputs", name)
    shape = list(inputs.shape[1:])
    for axis in shared_axes or ():
        if not isinstance(axis, int) or not 1 <= axis < inputs.ndim:
            fail(public, f"shared_axes entries must be ints in [1, {inputs.ndim}), got "
                         f"{shared_axes!r}", name)
        shape[axis - 1] = 1
    with namespace(name):
        alpha = get_variable("alpha", shape=tuple(shape), dtype=inputs.dtype,
                             initializer=alpha_initializer or constant_initializer(0),
                             regularizer=alpha_regularizer, trainable=trainable,
                             distribute=model_distribute or broadcast(), reuse=False)
    return apply_op("prelu", _lower_prelu, [inputs, alpha], name=name)


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


def upsample_2d(x: Blob, size: Any = (2, 2), align_corners: bool = False,
                data_format: str = "NCHW", interpolation: str = "nearest",
                name: str | None = None) -> Blob:
    """Resizes H and W by the factors ``size`` (an int or two numbers): output size is
    ``int(in * factor)``. "nearest" picks ``floor((o + 0.5) / factor)``; "bilinear" samples
    at ``(o + 0.5) / factor - 0.5`` (or corner-aligned with ``align_corners``)."""
    public = "flow.layers.upsample_2d"
    check_name(public, name)
    name = _layer_name(name, "Upsample2D")
    require_blob(public, x, "x", name)
    scales = (size, size) if isinstance(size, (int, float)) else tuple(size)
    if len(scales) != 2 or not all(isinstance(s, (int, float)) and s > 0 for s in scales):
        fail(public, f"size must be a positive number or two of them, got {size!r}", name)
    if interpolation not in ("nearest", "bilinear"):
        fail(public, f'interpolation must be "nearest" or "bilinear", got {interpolation!r}',
             name)
    if interpolation == "nearest" and align_corners:
        fail(public, 'interpolation "nearest" does not support align_corners', name)
    fmt = data_format.upper() if isinstance(data_format, str) else data_format
    if fmt not in ("NCHW", "NHWC") or x.ndim != 4:
        fail(public, f"x must be 4-D NCHW or NHWC, got {x.shape} with data_format "
                     f"{data_format!r}", name)
    if not x.dtype.is_floating:
        fail(public, f"needs a floating point input, got {x.dtype.name}", name)
    h, w = (x.shape[2], x.shape[3]) if fmt == "NCHW" else (x.shape[1], x.shape[2])
    outs = (int(h * scales[0]), int(w * scales[1]))
    if interpolation == "nearest":
        rows, cols = (_nearest_matrix(n, o, s) for n, o, s in zip((h, w), outs, scales))
    else:
        rows, cols = (_bilinear_matrix(n, o, s, align_corners)
                      for n, o, s in zip((h, w), outs, scales))
    attrs = {"rows": rows, "cols": cols}
    if fmt == "NHWC":
        return apply_op("upsample", _lower_upsample_nhwc, [x], attrs=attrs, name=name)
    return apply_op("upsample", _lower_upsample, [x], attrs=attrs, name=name)


def _lower_upsample_nhwc(x, *, rows, cols):
    return _lower_upsample(x.transpose(0, 3, 1, 2), rows=rows, cols=cols).transpose(0, 2, 3, 1)
