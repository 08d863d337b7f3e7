"""More of OneFlow v0.4's array and math ops: ``flow.math.tril``, ``flow.masked_fill``,
``flow.expand``, ``flow.reverse``, ``flow.sort``/``argsort``, ``flow.diag``,
``flow.broadcast_to_compatible_with``, ``flow.math.in_top_k``, ``flow.math.polyval``,
``flow.math.l2_normalize``, ``flow.experimental.square_sum`` and ``flow.range``."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtypes
from ..graph import Blob, RealShape, apply_op, current_graph, valid_mask
from ._array import constant_like, where, zeros_like
from ._binary import add, multiply
from ._util import broadcast_shape, check_name, fail, norm_axes, norm_axis, require_blob


def lower_tril(x, *, diagonal, fill):
    rows, cols = x.shape[-2:]
    keep = jnp.tril(jnp.ones((rows, cols), bool), diagonal)
    return jnp.where(keep, x, jnp.asarray(fill, x.dtype))


def tril(x: Blob, diagonal: int = 0, fill_value: float = 0, name: str | None = None) -> Blob:
    """The lower triangle of the last two axes (on and below ``diagonal``); ``fill_value``
    elsewhere."""
    public = "flow.math.tril"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if x.ndim < 2:
        fail(public, f"x needs rank >= 2, got shape {x.shape}", name)
    return apply_op("tril", lower_tril, [x], attrs={"diagonal": int(diagonal),
                                                      "fill": fill_value},
                    name=name, prefix="Tril")


def masked_fill(x: Blob, mask: Blob, value: float, name: str | None = None) -> Blob:
    """``value`` where ``mask`` is nonzero, else ``x`` (two ops, as OneFlow)."""
    public = "flow.masked_fill"
    check_name(public, name)
    require_blob(public, x, "x", name)
    require_blob(public, mask, "mask", name)
    if name is None:
        name = current_graph().unique_name("MaskedFill")
    filled = constant_like(x, value, name=name + "_ConstantLike")
    return where(mask, filled, x, name=name + "_Where")


def _lower_broadcast_to(x, *, shape):
    return jnp.broadcast_to(x, shape)


def expand(x: Blob, expand_size: Sequence[int], name: str | None = None) -> Blob:
    """``x`` broadcast to ``expand_size`` (-1 keeps an axis; new axes go in front)."""
    public = "flow.expand"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if not isinstance(expand_size, (list, tuple)) or len(expand_size) < x.ndim:
        fail(public, f"expand_size must list at least {x.ndim} sizes, got {expand_size!r}",
             name)
    lead = len(expand_size) - x.ndim
    shape = []
    for i, size in enumerate(expand_size):
        have = x.shape[i - lead] if i >= lead else None
        if have is not None and size in (-1, have):
            shape.append(have)
        elif (have is None or have == 1) and isinstance(size, int) and size >= 1:
            shape.append(size)
        else:
            fail(public, f"cannot expand {x.shape} to {tuple(expand_size)}: axis {i} has size "
                         f"{have} (only size-1 axes expand)", name)
    return apply_op("expand", _lower_broadcast_to, [x], attrs={"shape": tuple(shape)},
                    name=name, prefix="Expand")


def _lower_reverse(x, *, axes):
    return jnp.flip(x, axes)


def reverse(input: Blob, axis: int | Sequence[int], name: str | None = None) -> Blob:  # noqa: A002
    """``input`` with the order of elements along ``axis`` reversed."""
    public = "flow.reverse"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    axes = norm_axes(public, axis, input.ndim, name)
    return apply_op("reverse", _lower_reverse, [input], attrs={"axes": axes}, name=name,
                    prefix="Reverse")


def _sort_key(x, descending):
    # stable: equal values keep their order (argsort ties: the lower index first)
    if descending:  # negated keys keep ties in index order; integers widen so -min fits
        return -(x if jnp.issubdtype(x.dtype, jnp.floating) else x.astype(jnp.int64))
    return x


def _masked_sort(x, *, real, axis, descending, indices):
    key = _sort_key(x, descending)
    # Padding sorts last (after real values equal to the top key too: the sort is stable).
    top = jnp.inf if jnp.issubdtype(key.dtype, jnp.floating) else jnp.iinfo(key.dtype).max
    key = jnp.where(valid_mask(real[0], x.shape, [axis]), key, top)
    order = jnp.argsort(key, axis=axis, stable=True)
    return order.astype(jnp.int32) if indices else jnp.take_along_axis(x, order, axis)


def _same_real_shape(shapes, padded, **_):
    return shapes[0]


_SORT_REAL = RealShape(_same_real_shape, _masked_sort)


def _lower_sort(x, *, axis, descending, indices):
    key = _sort_key(x, descending)
    if indices:
        return jnp.argsort(key, axis=axis, stable=True).astype(jnp.int32)
    out = jnp.sort(x, axis=axis, stable=True)
    return jnp.flip(out, axis) if descending else out


def _sort(public: str, prefix: str, indices: bool, x: Blob, axis: int, direction: str,
          name: str | None) -> Blob:
    name = check_name(public, name)
    require_blob(public, x, "input", name)
    if direction not in ("ASCENDING", "DESCENDING"):
        fail(public, f"direction must be 'ASCENDING' or 'DESCENDING', got {direction!r}", name)
    axis = norm_axis(public, axis, x.ndim, name)
    return apply_op("arg_sort" if indices else "sort", _lower_sort, [x],
                    attrs={"axis": axis, "descending": direction == "DESCENDING",
                           "indices": indices}, name=name, prefix=prefix,
                    real_shape=_SORT_REAL)


def sort(input: Blob, axis: int = -1, direction: str = "ASCENDING",  # noqa: A002
         name: str | None = None) -> Blob:
    """The values of ``input`` sorted along ``axis``."""
    return _sort("flow.sort", "Sort", False, input, axis, direction, name)


def argsort(input: Blob, axis: int = -1, direction: str = "ASCENDING",  # noqa: A002
            name: str | None = None) -> Blob:
    """int32 indices that sort ``input`` along ``axis`` (ties in index order)."""
    return _sort("flow.argsort", "ArgSort", True, input, axis, direction, name)


def _lower_diag(x, *, diagonal):
    return jnp.diag(x, diagonal)


def diag(input: Blob, diagonal: int = 0, name: str | None = None) -> Blob:  # noqa: A002
    """A 1-D ``input`` as the ``diagonal``-th diagonal of a square matrix, or the
    ``diagonal``-th diagonal of a 2-D ``input``."""
    public = "flow.diag"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    if input.ndim not in (1, 2):
        fail(public, f"input must be 1-D or 2-D, got shape {input.shape}", name)
    if input.ndim == 2 and not -input.shape[0] < diagonal < input.shape[1]:
        fail(public, f"diagonal {diagonal} is outside the {input.shape} matrix", name)
    return apply_op("diag", _lower_diag, [input], attrs={"diagonal": int(diagonal)}, name=name,
                    prefix="Diag")


def _lower_broadcast_compatible(x, *others, shape):
    return jnp.broadcast_to(x, shape)


def _masked_broadcast_compatible(x, *others, real, shape):
    # A dynamic dim of real size 1 broadcasts its first element, not the padded row.
    for d in builtins.range(x.ndim):  # flow.range shadows the builtin here
        if x.shape[d] > 1:
            index = jnp.where(real[0][d] == 1, 0, jnp.arange(x.shape[d]))
            x = jnp.take(x, index, axis=d)
    return jnp.broadcast_to(x, shape)


def _broadcast_real(shapes, padded, *, shape):
    try:
        return tuple(int(d) for d in np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(f"real shapes {list(shapes)} do not broadcast together") from None


_BROADCAST_REAL = RealShape(_broadcast_real, _masked_broadcast_compatible)


def broadcast_to_compatible_with(x: Blob, compatible: Sequence[Blob],
                                 name: str | None = None) -> Blob:
    """``x`` broadcast to the common broadcast shape of ``x`` and every ``compatible`` blob."""
    public = "flow.broadcast_to_compatible_with"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if not isinstance(compatible, (list, tuple)):
        fail(public, f"compatible must be a list of blobs, got {compatible!r}", name)
    for i, b in enumerate(compatible):
        require_blob(public, b, f"compatible[{i}]", name)
    shape = broadcast_shape(public, [x.shape, *(b.shape for b in compatible)], name)
    return apply_op("broadcast_to_compatible_with", _lower_broadcast_compatible,
                    [x, *compatible], attrs={"shape": shape}, name=name,
                    prefix="BroadcastToCompatibleWith", real_shape=_BROADCAST_REAL)


def _in_top_k(targets, predictions, keep, k):
    picked = jnp.take_along_axis(predictions, targets.astype(jnp.int32)[:, None], axis=1)
    above = jnp.sum((predictions > picked) & keep, axis=1)
    # As OneFlow's kernel (and TensorFlow): a row with any non-finite prediction says 0.
    finite = jnp.all(jnp.isfinite(predictions) | ~keep, axis=1)
    return ((above < k) & finite).astype(jnp.int8)


def _lower_in_top_k(targets, predictions, *, k):
    return _in_top_k(targets, predictions, jnp.ones(predictions.shape, bool), k)


def _masked_in_top_k(targets, predictions, *, real, k):
    # Padded classes neither rank above the target nor count as non-finite.
    return _in_top_k(targets, predictions, valid_mask(real[1], predictions.shape, [1]), k)


def _in_top_k_real(shapes, padded, *, k):
    (n,), (rows, classes) = shapes
    if n != rows:
        raise ValueError(f"{n} targets for {rows} rows of predictions")
    return (n,)


_IN_TOP_K_REAL = RealShape(_in_top_k_real, _masked_in_top_k)


def in_top_k(targets: Blob, predictions: Blob, k: int, name: str | None = None) -> Blob:
    """1 (int8) where the target class is among the ``k`` largest predictions of its row
    (ties at the boundary count as in, as TensorFlow), else 0."""
    public = "flow.math.in_top_k"
    name = check_name(public, name)
    require_blob(public, targets, "targets", name)
    require_blob(public, predictions, "predictions", name)
    if targets.dtype.np_dtype.kind not in "iu" or targets.ndim != 1:
        fail(public, f"targets must be 1-D integers, got {targets.shape} {targets.dtype.name}",
             name)
    if predictions.ndim != 2 or predictions.shape[0] != targets.shape[0]:
        fail(public, f"predictions must be (batch, classes) with batch {targets.shape[0]}, "
                     f"got {predictions.shape}", name)
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        fail(public, f"k must be an int >= 1, got {k!r}", name)
    return apply_op("in_top_k", _lower_in_top_k, [targets, predictions], attrs={"k": k},
                    name=name, prefix="InTopK", real_shape=_IN_TOP_K_REAL)


def polyval(coeffs: Sequence[float], x: Blob, name: str | None = None) -> Blob:
    """``coeffs[0] * x**(n-1) + ... + coeffs[n-1]`` by Horner's rule (OneFlow's op chain)."""
    public = "flow.math.polyval"
    check_name(public, name)
    require_blob(public, x, "x", name)
    if not isinstance(coeffs, (list, tuple)):
        fail(public, f"coeffs must be a list of numbers, got {type(coeffs).__name__}", name)
    if name is None:
        name = current_graph().unique_name("Polyval")
    p = zeros_like(x, name=name)
    for c in coeffs:
        p = add(c, multiply(p, x))
    return p


def _lower_l2_normalize(x, *, axis, epsilon):
    total = jnp.sum(jnp.square(x), axis=axis, keepdims=True)
    return x * jax.lax.rsqrt(jnp.maximum(total, jnp.asarray(epsilon, x.dtype)))


def l2_normalize(input: Blob, axis: int | None = None, epsilon: float = 1e-12,  # noqa: A002
                 name: str | None = None) -> Blob:
    """``x / sqrt(max(sum(x ** 2, axis), epsilon))``."""
    public = "flow.math.l2_normalize"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    if axis is None:
        fail(public, "axis is required (OneFlow fails without one)", name)
    axis = norm_axis(public, axis, input.ndim, name)
    return apply_op("l2_normalize", _lower_l2_normalize, [input],
                    attrs={"axis": axis, "epsilon": float(epsilon)}, name=name,
                    prefix="L2Normalize")


def _lower_square_sum(x):
    return jnp.sum(jnp.square(x)).reshape((1,))


def square_sum(x: Blob, name: str | None = None) -> Blob:
    """``sum(x ** 2)`` over every element, shape ``(1,)``."""
    public = "flow.experimental.square_sum"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    return apply_op("square_sum", _lower_square_sum, [x], name=name, prefix="SquareSum")



def _lower_range(*, start, limit, delta, dtype):
    return jnp.arange(start, limit, delta, dtype=dtype)


def range(start: int, limit: int | None = None, delta: int = 1,  # noqa: A001 - OneFlow's name
          dtype: Any = None, name: str | None = None) -> Blob:
    """``[start, start + delta, ...)`` below ``limit`` (``range(n)``: ``0..n-1``), default
    dtype int64."""
    public = "flow.range"
    name = check_name(public, name)
    if limit is None:
        start, limit = 0, start
    for what, v in (("start", start), ("limit", limit), ("delta", delta)):
        if type(v) is not int:
            fail(public, f"{what} must be an int, got {v!r}", name)
    if delta <= 0 or limit <= start:
        fail(public, f"needs start < limit and delta > 0, got start={start}, limit={limit}, "
                     f"delta={delta}", name)
    dt = _dtypes.int64 if dtype is None else _dtypes.as_dtype(dtype)
    return apply_op("range", _lower_range, [],
                    attrs={"start": start, "limit": limit, "delta": delta,
                           "dtype": dt.np_dtype}, name=name, prefix="Range")
