"""Small OneFlow v0.4 ops: explicit gradient ops (``math.gelu_grad``, ``math.sigmoid_grad``,
``nn.softmax_grad``), non-finite counts, ``reshape_like``, ``amp_white_identity``,
``math.reduced_shape_elem_cnt`` and ``nn.random_mask_like``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp

from .. import _dtypes
from ..graph import Blob, apply_op
from ._array import identity
from ._util import check_name, fail, norm_axes, norm_axis, require_blob


def _pair(public: str, a: Blob, b: Blob, names: tuple[str, str], name: str | None) -> None:
    require_blob(public, a, names[0], name)
    require_blob(public, b, names[1], name)
    if a.shape != b.shape or a.dtype != b.dtype or not a.dtype.is_floating:
        fail(public, f"{names[0]} ({a.shape} {a.dtype.name}) and {names[1]} ({b.shape} "
                     f"{b.dtype.name}) need one floating point shape and dtype", name)


def _lower_gelu_grad(x, dy):
    return dy * jax.grad(lambda v: jnp.sum(jax.nn.gelu(v, approximate=False)))(x)


def gelu_grad(x: Blob, dy: Blob, name: str | None = None) -> Blob:
    """``dy * gelu'(x)`` (exact gelu)."""
    public = "flow.math.gelu_grad"
    name = check_name(public, name)
    _pair(public, x, dy, ("x", "dy"), name)
    return apply_op("gelu_grad", _lower_gelu_grad, [x, dy], name=name, prefix="GeluGrad",
                    elementwise=True)


def _lower_sigmoid_grad(y, dy):
    return dy * y * (1 - y)


def sigmoid_grad(y: Blob, dy: Blob, name: str | None = None) -> Blob:
    """``dy * y * (1 - y)`` for ``y = sigmoid(x)``."""
    public = "flow.math.sigmoid_grad"
    name = check_name(public, name)
    _pair(public, y, dy, ("y", "dy"), name)
    return apply_op("sigmoid_grad", _lower_sigmoid_grad, [y, dy], name=name,
                    prefix="SigmoidGrad", elementwise=True)


def _lower_softmax_grad(y, dy, *, axis):
    return y * (dy - jnp.sum(dy * y, axis=axis, keepdims=True))


def softmax_grad(y: Blob, dy: Blob, axis: int | None = None, name: str | None = None) -> Blob:
    """``y * (dy - sum(dy * y))`` along ``axis`` (default last) for ``y = softmax(x)``."""
    public = "flow.nn.softmax_grad"
    name = check_name(public, name)
    _pair(public, y, dy, ("y", "dy"), name)
    axis = norm_axis(public, -1 if axis is None else axis, y.ndim, name)
    return apply_op("softmax_grad", _lower_softmax_grad, [y, dy], attrs={"axis": axis},
                    name=name, prefix="SoftmaxGrad")


def _lower_count_not_finite(*xs):
    return sum(jnp.sum(~jnp.isfinite(x), dtype=jnp.int64) for x in xs).reshape((1,))


def multi_count_not_finite(x: Sequence[Blob] | None = None, name: str | None = None) -> Blob:
    """How many elements of all blobs in ``x`` are inf or NaN: int64, shape ``(1,)``."""
    public = "flow.multi_count_not_finite"
    name = check_name(public, name)
    if not isinstance(x, (list, tuple)) or not x:
        fail(public, f"x must be a non-empty list of blobs, got {x!r}", name)
    for i, b in enumerate(x):
        require_blob(public, b, f"x[{i}]", name)
    return apply_op("multi_count_not_finite", _lower_count_not_finite, list(x), name=name,
                    prefix="MultiCountNotFinite")


def count_not_finite(x: Blob, name: str | None = None) -> Blob:
    """How many elements of ``x`` are inf or NaN: int64, shape ``(1,)``."""
    public = "flow.count_not_finite"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    return apply_op("count_not_finite", _lower_count_not_finite, [x], name=name,
                    prefix="CountNotFinite")


def _lower_reshape_like(x, like):
    return x.reshape(like.shape)


def reshape_like(x: Blob, like: Blob, name: str | None = None) -> Blob:
    """``x`` reshaped to ``like``'s shape (same element count)."""
    public = "flow.reshape_like"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    require_blob(public, like, "like", name)
    if x.numel() != like.numel():
        fail(public, f"x {x.shape} and like {like.shape} have different element counts", name)
    return apply_op("reshape_like", _lower_reshape_like, [x, like], name=name,
                    prefix="ReshapeLike")


def amp_white_identity(x: Blob, name: str | None = None) -> Blob:
    """``x`` itself as a new op (OneFlow marks it for mixed precision; XLA needs no mark)."""
    return identity(x, name=name)


def _lower_elem_cnt(x, *, count, dtype):
    return jnp.full((1,), count, dtype)


def reduced_shape_elem_cnt(input_blob: Blob, axis: Sequence[int] | None = None,
                           dtype: Any = None, name: str | None = None) -> Blob:
    """The number of elements over ``axis`` (all axes by default) as a ``(1,)`` blob
    (default dtype int32)."""
    public = "flow.math.reduced_shape_elem_cnt"
    name = check_name(public, name)
    require_blob(public, input_blob, "input_blob", name)
    axes = norm_axes(public, axis, input_blob.ndim, name)
    dt = _dtypes.int32 if dtype is None else _dtypes.as_dtype(dtype)
    count = math.prod(input_blob.shape[a] for a in axes)
    return apply_op("shape_elem_cnt", _lower_elem_cnt, [input_blob],
                    attrs={"count": count, "dtype": dt.np_dtype}, name=name,
                    prefix="ShapeElemCnt")


def _lower_random_mask(like, *, key, rate, seed):
    # the draw flow.nn.dropout makes: one seed gives both the same mask
    return jax.random.bernoulli(key, 1.0 - rate, like.shape).astype(jnp.int8)


def random_mask_like(like: Blob, rate: float, seed: int | None = None,
                     noise_shape: Sequence[int] | None = None,
                     name: str | None = None) -> Blob:
    """An int8 mask shaped like ``like``: 1 with probability ``1 - rate`` (dropout's keep
    mask), a new draw per call."""
    public = "flow.nn.random_mask_like"
    name = check_name(public, name)
    require_blob(public, like, "like", name)
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate < 1:
        fail(public, f"rate must be in [0, 1), got {rate!r}", name)
    if noise_shape is not None:
        fail(public, "noise_shape is not supported (as in OneFlow v0.4)", name)
    return apply_op("random_mask_like", _lower_random_mask, [like],
                    attrs={"rate": float(rate), "seed": seed}, name=name,
                    prefix="RandomMaskLike", rng=True)
