"""Reductions along axes, arg-max/top-k and softmax.

As in OneFlow, there are no 0-d results: reducing every axis without ``keepdims`` (and
``argmax`` of a vector) gives shape ``(1,)``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from ..graph import Blob, RealShape, apply_op, lowest, valid_mask
from ._util import check_name, fail, norm_axes, norm_axis, require_blob


def _lower_reduce(x, *, fn, axis, keepdims):
    out = fn(x, axis=axis, keepdims=keepdims)
    return out.reshape((1,)) if out.ndim == 0 else out


def _mean_keep_dtype(x, axis, keepdims):
    out = jnp.mean(x, axis=axis, keepdims=keepdims)
    return out if jnp.issubdtype(x.dtype, jnp.floating) else out.astype(x.dtype)


def _variance(x, axis, keepdims):
    return jnp.var(x, axis=axis, keepdims=keepdims)


def _reduce(kind: str, prefix: str, fn: Callable[..., Any], x: Blob, axis: Any, keepdims: bool,
            name: str | None, floating: bool = False,
            no_axes: Callable[[Blob, str | None], Blob] | None = None) -> Blob:
    """``no_axes(x, name)`` gives the result for an empty axis list (default: ``x`` itself,
    as OneFlow returns the input when there is nothing to reduce)."""
    public = f"flow.math.{kind}"
    name = check_name(public, name)
    require_blob(public, x, "input_tensor", name)
    if floating and not x.dtype.is_floating:
        fail(public, f"needs a floating point input, got {x.dtype.name}", name)
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        return x if no_axes is None else no_axes(x, name)
    axes = norm_axes(public, axis, x.ndim, name)
    return apply_op(kind, functools.partial(_lower_reduce, fn=fn), [x],
                    attrs={"axis": axes, "keepdims": bool(keepdims)}, name=name, prefix=prefix)


def reduce_sum(input_tensor: Blob, axis: Any = None, keepdims: bool = False,
               name: str | None = None) -> Blob:
    """Sum over ``axis`` (int, list of ints, or None for all axes)."""
    return _reduce("reduce_sum", "ReduceSum", jnp.sum, input_tensor, axis, keepdims, name)


def reduce_mean(input_tensor: Blob, axis: Any = None, keepdims: bool = False,
                name: str | None = None) -> Blob:
    """Mean over ``axis``; integer inputs keep their dtype (the mean is truncated)."""
    return _reduce("reduce_mean", "ReduceMean", _mean_keep_dtype, input_tensor, axis, keepdims,
                   name)


def reduce_max(input_tensor: Blob, axis: Any = None, keepdims: bool = False,
               name: str | None = None) -> Blob:
    """Maximum over ``axis``."""
    return _reduce("reduce_max", "ReduceMax", jnp.max, input_tensor, axis, keepdims, name)


def reduce_min(input_tensor: Blob, axis: Any = None, keepdims: bool = False,
               name: str | None = None) -> Blob:
    """Minimum over ``axis``."""
    return _reduce("reduce_min", "ReduceMin", jnp.min, input_tensor, axis, keepdims, name)


def reduce_prod(input_tensor: Blob, axis: Any = None, keepdims: bool = False,
                name: str | None = None) -> Blob:
    """Product over ``axis``."""
    return _reduce("reduce_prod", "ReduceProd", jnp.prod, input_tensor, axis, keepdims, name)


def _zeros_like(x: Blob, name: str | None) -> Blob:
    from ._array import zeros_like

    return zeros_like(x, name=None if name is None else name + "_zeros_like")


def reduce_variance(input_tensor: Blob, axis: Any = None, keepdims: bool = False,
                    name: str | None = None) -> Blob:
    """Population variance (divides by N) over ``axis``; zeros for an empty axis list."""
    return _reduce("reduce_variance", "ReduceVariance", _variance, input_tensor, axis, keepdims,
                   name, floating=True, no_axes=_zeros_like)


def _std(x, axis, keepdims):
    return jnp.std(x, axis=axis, keepdims=keepdims)


def reduce_std(input_tensor: Blob, axis: Any = None, keepdims: bool = False,
               name: str | None = None) -> Blob:
    """Population standard deviation over ``axis``; zeros for an empty axis list."""
    return _reduce("reduce_std", "ReduceStd", _std, input_tensor, axis, keepdims, name,
                   floating=True, no_axes=_zeros_like)


def _nonzero(x: Blob, name: str | None) -> Blob:
    from ._binary import not_equal

    return not_equal(x, 0, name=name)


def _any(x, axis, keepdims):
    return jnp.any(x != 0, axis=axis, keepdims=keepdims).astype(x.dtype)


def _all(x, axis, keepdims):
    return jnp.all(x != 0, axis=axis, keepdims=keepdims).astype(x.dtype)


def reduce_any(x: Blob, axis: Any = None, keepdims: bool = False,
               name: str | None = None) -> Blob:
    """1 where any element over ``axis`` is nonzero, else 0, in ``x``'s dtype. An empty axis
    list gives ``x != 0`` (int8), as OneFlow."""
    return _reduce("reduce_any", "ReduceAny", _any, x, axis, keepdims, name, no_axes=_nonzero)


def reduce_all(x: Blob, axis: Any = None, keepdims: bool = False,
               name: str | None = None) -> Blob:
    """1 where every element over ``axis`` is nonzero, else 0, in ``x``'s dtype. An empty axis
    list gives ``x != 0`` (int8), as OneFlow."""
    return _reduce("reduce_all", "ReduceAll", _all, x, axis, keepdims, name, no_axes=_nonzero)


def _euclidean_norm(x, axis, keepdims):
    return jnp.sqrt(jnp.sum(jnp.square(x), axis=axis, keepdims=keepdims))


def reduce_euclidean_norm(input_tensor: Blob, axis: Any = None, keepdims: bool = False,
                          name: str | None = None) -> Blob:
    """``sqrt(sum(x ** 2))`` over ``axis``."""
    def no_axes(x: Blob, op_name: str | None) -> Blob:
        from ._unary import abs as abs_

        return abs_(x, name=op_name)

    return _reduce("reduce_euclidean_norm", "ReduceEuclideanNorm", _euclidean_norm,
                   input_tensor, axis, keepdims, name, floating=True, no_axes=no_axes)


def _logsumexp(x, axis, keepdims):
    return jax.nn.logsumexp(x, axis=axis, keepdims=keepdims)


def reduce_logsumexp(input_tensor: Blob, axis: Any = None, keepdims: bool = False,
                     name: str | None = None) -> Blob:
    """``log(sum(exp(x)))`` over ``axis``, computed stably (OneFlow's overflows for large x)."""
    return _reduce("reduce_logsumexp", "ReduceLogSumExp", _logsumexp, input_tensor, axis,
                   keepdims, name, floating=True)


def _lower_argmax(x, *, axis):
    out = jnp.argmax(x, axis=axis).astype(jnp.int32)
    return out.reshape((1,)) if out.ndim == 0 else out


def _masked_argmax(x, *, real, axis):
    return _lower_argmax(jnp.where(valid_mask(real[0], x.shape, [axis]), x, lowest(x.dtype)),
                         axis=axis)


def _argmax_real(shapes, padded, *, axis):
    out = shapes[0][:axis] + shapes[0][axis + 1:]
    if 0 in shapes[0][axis:axis + 1]:
        raise ValueError(f"argmax over axis {axis} of real size 0")
    return out or (1,)


_ARGMAX_REAL = RealShape(_argmax_real, _masked_argmax)


def argmax(input: Blob, axis: int = -1, name: str | None = None) -> Blob:  # noqa: A002
    """Index (int32) of the largest value along ``axis``; ties give the first index. A vector
    gives shape ``(1,)``."""
    public = "flow.math.argmax"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    axis = norm_axis(public, axis, input.ndim, name)
    return apply_op("argmax", _lower_argmax, [input], attrs={"axis": axis}, name=name,
                    prefix="ArgMax", real_shape=_ARGMAX_REAL)


def _lower_top_k(x, *, axis, k, sorted):
    moved = jnp.moveaxis(x, axis, -1)
    _, idx = jax.lax.top_k(moved, k)  # sorted by value, descending
    if not sorted:
        idx = jnp.sort(idx, axis=-1)  # any order is allowed; index order is deterministic
    return jnp.moveaxis(idx.astype(jnp.int32), -1, axis)


def _masked_top_k(x, *, real, axis, k, sorted):
    keep = valid_mask(real[0], x.shape, [axis])
    return _lower_top_k(jnp.where(keep, x, lowest(x.dtype)), axis=axis, k=k, sorted=sorted)


def _top_k_real(shapes, padded, *, axis, k, sorted):
    # OneFlow's kernel takes min(k, size): a row shorter than k gives all its indices.
    return shapes[0][:axis] + (min(k, shapes[0][axis]),) + shapes[0][axis + 1:]


_TOP_K_REAL = RealShape(_top_k_real, _masked_top_k)


def top_k(input: Blob, axis: int = -1, k: int = 1, sorted: bool = True,  # noqa: A002
          name: str | None = None) -> Blob:
    """Indices (int32) of the ``k`` largest values along ``axis`` (OneFlow returns only indices).

    With ``sorted`` the indices are ordered by descending value, otherwise by index. A ``k``
    larger than the axis gives all its indices, as OneFlow's kernel (``min(k, size)``).
    """
    public = "flow.math.top_k"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    axis = norm_axis(public, axis, input.ndim, name)
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        fail(public, f"k must be an int >= 1, got {k!r}", name)
    return apply_op("top_k", _lower_top_k, [input],
                    attrs={"axis": axis, "k": min(k, input.shape[axis]), "sorted": bool(sorted)},
                    name=name, prefix="TopK", real_shape=_TOP_K_REAL)


def _lower_softmax(x, *, axis):
    return jax.nn.softmax(x, axis=axis)


def _lower_log_softmax(x, *, axis):
    return jax.nn.log_softmax(x, axis=axis)


def _softmax(public: str, op_type: str, prefix: str, lowering, logits: Blob, axis: Any,
             name: str | None) -> Blob:
    name = check_name(public, name)
    require_blob(public, logits, "logits", name)
    if not logits.dtype.is_floating:
        fail(public, f"needs floating point logits, got {logits.dtype.name}", name)
    if logits.ndim == 0:
        fail(public, "needs logits of rank >= 1, got a scalar", name)
    axis = norm_axis(public, -1 if axis is None else axis, logits.ndim, name)
    return apply_op(op_type, lowering, [logits], attrs={"axis": axis}, name=name, prefix=prefix)


def softmax(logits: Blob, axis: int | None = None, name: str | None = None) -> Blob:
    """``exp(x) / sum(exp(x))`` along ``axis`` (default: the last axis)."""
    return _softmax("flow.nn.softmax", "softmax", "Softmax", _lower_softmax, logits, axis, name)


def log_softmax(logits: Blob, axis: int | None = None, name: str | None = None) -> Blob:
    """``x - log(sum(exp(x)))`` along ``axis`` (default: the last axis)."""
    return _softmax("flow.nn.log_softmax", "log_softmax", "LogSoftmax", _lower_log_softmax,
                    logits, axis, name)
