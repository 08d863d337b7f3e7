"""Reductions along axes (``reduce_*``), ``square_sum``, ``reduced_shape_elem_cnt`` and the
non-finite counts.

As in OneFlow, there are no 0-d results: reducing every axis without ``keepdims`` gives
shape ``(1,)``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp

from .. import _dtypes
from ..graph import Blob, RealShape, apply_op
from ..graph._real_shape import fill_padding, highest, lowest
from ._binary import not_equal
from ._creation import zeros_like
from ._unary import abs as abs_
from ._util import check_name, fail, norm_axes, require_blob


def _lower_reduce(x, *, fn, axis, keepdims):
    out = fn(x, axis=axis, keepdims=keepdims)
    return out.reshape((1,)) if out.ndim == 0 else out


# Dynamic inputs: the padding becomes the reduction's identity (or, for the means, zeros
# divided by the real count), so that only the real elements count.
def _reduced_real(shapes, padded, *, axis, keepdims):
    if keepdims:
        return tuple(1 if d in axis else n for d, n in enumerate(shapes[0]))
    return tuple(n for d, n in enumerate(shapes[0]) if d not in axis) or (1,)


def _real_count(real, axis):
    return jnp.prod(jnp.stack([real[a] for a in axis])).astype(jnp.float32)


def _masked_mean(x, real, axis, keepdims):
    total = jnp.sum(fill_padding(x, real, 0), axis=axis, keepdims=keepdims)
    count = jnp.maximum(_real_count(real, axis), 1)
    if jnp.issubdtype(x.dtype, jnp.floating):
        return total / count.astype(total.dtype)
    return (total / count).astype(x.dtype)  # truncated, as the static integer mean


def _masked_centered(x, real, axis):
    mean = _masked_mean(x, real, axis, True)
    return fill_padding(x - mean, real, 0)


def _masked_variance(x, real, axis, keepdims):
    squares = jnp.sum(jnp.square(_masked_centered(x, real, axis)), axis=axis, keepdims=keepdims)
    return squares / jnp.maximum(_real_count(real, axis), 1).astype(squares.dtype)


def _masked_std(x, real, axis, keepdims):
    return jnp.sqrt(_masked_variance(x, real, axis, keepdims))


def _masked_logsumexp(x, real, axis, keepdims):
    return jax.nn.logsumexp(fill_padding(x, real, -jnp.inf), axis=axis, keepdims=keepdims)


def _identity_filled(fn, identity):
    def masked(x, real, axis, keepdims):
        return fn(fill_padding(x, real, identity(x.dtype)), axis=axis, keepdims=keepdims)

    return masked


def _masked_reduce(x, *, real, fn, axis, keepdims):
    out = _MASKED[fn](x, real[0], axis, keepdims)
    return out.reshape((1,)) if out.ndim == 0 else out


def _mean_keep_dtype(x, axis, keepdims):
    out = jnp.mean(x, axis=axis, keepdims=keepdims)
    return out if jnp.issubdtype(x.dtype, jnp.floating) else out.astype(x.dtype)


def _variance(x, axis, keepdims):
    return jnp.var(x, axis=axis, keepdims=keepdims)


def _reduce(
    kind: str,
    prefix: str,
    fn: Callable[..., Any],
    x: Blob,
    axis: Any,
    keepdims: bool,
    name: str | None,
    floating: bool = False,
    no_axes: Callable[[Blob, str | None], Blob] | None = None,
) -> Blob:
    """``no_axes(x, name)`` gives the result for an empty axis list (default: ``x`` itself,
    as OneFlow returns the input when there is nothing to reduce)."""
    public = f"flow.math.{kind}"
    name = check_name(public, name)
    require_blob(public, x, "the input", name)
    if floating and not x.dtype.is_floating:
        fail(public, f"needs a floating point input, got {x.dtype.name}", name)
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        return x if no_axes is None else no_axes(x, name)
    axes = norm_axes(public, axis, x.ndim, name)
    return apply_op(
        kind,
        functools.partial(_lower_reduce, fn=fn),
        [x],
        attrs={"axis": axes, "keepdims": bool(keepdims)},
        name=name,
        prefix=prefix,
        real_shape=RealShape(_reduced_real, functools.partial(_masked_reduce, fn=fn)),
    )


def reduce_sum(
    input_tensor: Blob, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Blob:
    """Sum over ``axis`` (int, list of ints, or None for all axes)."""
    return _reduce("reduce_sum", "ReduceSum", jnp.sum, input_tensor, axis, keepdims, name)


def reduce_mean(
    input_blob: Blob, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Blob:
    """Mean over ``axis`` (``flow.math.reduce_mean``).

    Args:
        input_blob: the blob to reduce.
        axis: an axis or a list of axes (negative ones count from the end); None: every axis.
        keepdims: keep each reduced axis with size 1.
        name: the op's name (default: generated).

    Returns:
        A blob of ``input_blob``'s dtype (integer means are truncated). As in OneFlow, a
        reduction over every axis without ``keepdims`` has shape ``(1,)``, not ``()``.

    Raises:
        OpError: an axis is out of range for the input's rank.

    Examples:
        >>> import numpy as np, flowjob as flow, flowjob.typing as tp
        >>> @flow.global_function()
        ... def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        ...     return flow.math.reduce_mean(x, axis=1)
        >>> job(np.array([[1, 2, 3], [4, 5, 9]], np.float32))
        array([2., 6.], dtype=float32)
    """
    return _reduce("reduce_mean", "ReduceMean", _mean_keep_dtype, input_blob, axis, keepdims, name)


def reduce_max(x: Blob, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Blob:
    """Maximum over ``axis``."""
    return _reduce("reduce_max", "ReduceMax", jnp.max, x, axis, keepdims, name)


def reduce_min(x: Blob, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Blob:
    """Minimum over ``axis``."""
    return _reduce("reduce_min", "ReduceMin", jnp.min, x, axis, keepdims, name)


def two_stage_reduce_max(
    x: Blob, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Blob:
    """``flow.math.two_stage_reduce_max``: OneFlow reduces each device's split first, then
    across devices; XLA plans the reduction of a sharded blob itself, so this is
    ``reduce_max`` (ties share the gradient equally, as in OneFlow's two stages)."""
    return _reduce("reduce_max", "ReduceMax", jnp.max, x, axis, keepdims, name)


def two_stage_reduce_min(
    x: Blob, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Blob:
    """``flow.math.two_stage_reduce_min``: ``reduce_min`` (see ``two_stage_reduce_max``)."""
    return _reduce("reduce_min", "ReduceMin", jnp.min, x, axis, keepdims, name)


def reduce_prod(x: Blob, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Blob:
    """Product over ``axis``."""
    return _reduce("reduce_prod", "ReduceProd", jnp.prod, x, axis, keepdims, name)


def _zeros_like(x: Blob, name: str | None) -> Blob:
    return zeros_like(x, name=None if name is None else name + "_zeros_like")


def reduce_variance(
    input_tensor: Blob, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Blob:
    """Population variance (divides by N) over ``axis``; zeros for an empty axis list."""
    return _reduce(
        "reduce_variance",
        "ReduceVariance",
        _variance,
        input_tensor,
        axis,
        keepdims,
        name,
        floating=True,
        no_axes=_zeros_like,
    )


def _std(x, axis, keepdims):
    return jnp.std(x, axis=axis, keepdims=keepdims)


def reduce_std(
    input_tensor: Blob, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Blob:
    """Population standard deviation over ``axis``; zeros for an empty axis list."""
    return _reduce(
        "reduce_std",
        "ReduceStd",
        _std,
        input_tensor,
        axis,
        keepdims,
        name,
        floating=True,
        no_axes=_zeros_like,
    )


def _nonzero(x: Blob, name: str | None) -> Blob:
    return not_equal(x, 0, name=name)


def _any(x, axis, keepdims):
    return jnp.any(x != 0, axis=axis, keepdims=keepdims).astype(x.dtype)


def _all(x, axis, keepdims):
    return jnp.all(x != 0, axis=axis, keepdims=keepdims).astype(x.dtype)


def reduce_any(x: Blob, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Blob:
    """1 where any element over ``axis`` is nonzero, else 0, in ``x``'s dtype. An empty axis
    list gives ``x != 0`` (int8), as OneFlow."""
    return _reduce("reduce_any", "ReduceAny", _any, x, axis, keepdims, name, no_axes=_nonzero)


def reduce_all(x: Blob, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Blob:
    """1 where every element over ``axis`` is nonzero, else 0, in ``x``'s dtype. An empty axis
    list gives ``x != 0`` (int8), as OneFlow."""
    return _reduce("reduce_all", "ReduceAll", _all, x, axis, keepdims, name, no_axes=_nonzero)


def _euclidean_norm(x, axis, keepdims):
    return jnp.sqrt(jnp.sum(jnp.square(x), axis=axis, keepdims=keepdims))


def reduce_euclidean_norm(
    input_tensor: Blob, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Blob:
    """``sqrt(sum(x ** 2))`` over ``axis``."""

    def no_axes(x: Blob, op_name: str | None) -> Blob:
        return abs_(x, name=op_name)

    return _reduce(
        "reduce_euclidean_norm",
        "ReduceEuclideanNorm",
        _euclidean_norm,
        input_tensor,
        axis,
        keepdims,
        name,
        floating=True,
        no_axes=no_axes,
    )


def _logsumexp(x, axis, keepdims):
    return jax.nn.logsumexp(x, axis=axis, keepdims=keepdims)


def reduce_logsumexp(
    input_tensor: Blob, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Blob:
    """``log(sum(exp(x)))`` over ``axis``, computed stably (OneFlow's overflows for large x)."""
    return _reduce(
        "reduce_logsumexp",
        "ReduceLogSumExp",
        _logsumexp,
        input_tensor,
        axis,
        keepdims,
        name,
        floating=True,
    )


def _lower_square_sum(x):
    return jnp.sum(jnp.square(x)).reshape((1,))


def square_sum(x: Blob, name: str | None = None) -> Blob:
    """``sum(x ** 2)`` over every element, shape ``(1,)``."""
    public = "flow.experimental.square_sum"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    return apply_op("square_sum", _lower_square_sum, [x], name=name, prefix="SquareSum")


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
    return apply_op(
        "multi_count_not_finite",
        _lower_count_not_finite,
        list(x),
        name=name,
        prefix="MultiCountNotFinite",
    )


def count_not_finite(x: Blob, name: str | None = None) -> Blob:
    """How many elements of ``x`` are inf or NaN: int64, shape ``(1,)``."""
    public = "flow.count_not_finite"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    return apply_op(
        "count_not_finite", _lower_count_not_finite, [x], name=name, prefix="CountNotFinite"
    )


def _lower_elem_cnt(x, *, count, dtype):
    return jnp.full((1,), count, dtype)


def reduced_shape_elem_cnt(
    input_blob: Blob, axis: Sequence[int] | None = None, dtype: Any = None, name: str | None = None
) -> Blob:
    """The number of elements over ``axis`` (all axes by default) as a ``(1,)`` blob
    (default dtype int32)."""
    public = "flow.math.reduced_shape_elem_cnt"
    name = check_name(public, name)
    require_blob(public, input_blob, "input_blob", name)
    axes = norm_axes(public, axis, input_blob.ndim, name)
    dt = _dtypes.int32 if dtype is None else _dtypes.as_dtype(dtype)
    count = math.prod(input_blob.shape[a] for a in axes)
    return apply_op(
        "shape_elem_cnt",
        _lower_elem_cnt,
        [input_blob],
        attrs={"count": count, "dtype": dt.np_dtype},
        name=name,
        prefix="ShapeElemCnt",
    )


def _zero(dtype):
    return 0


def _one(dtype):
    return 1


# The masked form of each reduction (what a dynamic input's padding becomes).
_MASKED = {
    jnp.sum: _identity_filled(jnp.sum, _zero),
    jnp.max: _identity_filled(jnp.max, lowest),
    jnp.min: _identity_filled(jnp.min, highest),
    jnp.prod: _identity_filled(jnp.prod, _one),
    _any: _identity_filled(_any, _zero),
    _all: _identity_filled(_all, _one),
    _euclidean_norm: _identity_filled(_euclidean_norm, _zero),
    _mean_keep_dtype: _masked_mean,
    _variance: _masked_variance,
    _std: _masked_std,
    _logsumexp: _masked_logsumexp,
}
