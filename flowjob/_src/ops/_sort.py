"""Ordering: ``flow.sort``/``argsort``, ``argmax``, ``top_k`` and ``flow.math.in_top_k``.

As in OneFlow, ``argmax`` of a vector gives shape ``(1,)``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ..graph import Blob, RealShape, apply_op, lowest, valid_mask
from ._modes import SortDirection
from ._util import check_name, fail, norm_axis, require_blob


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


def _sort(
    public: str, prefix: str, indices: bool, x: Blob, axis: int, direction: str, name: str | None
) -> Blob:
    name = check_name(public, name)
    require_blob(public, x, "input", name)
    order = SortDirection.lookup(direction)
    if order is None:
        fail(public, f"direction must be 'ASCENDING' or 'DESCENDING', got {direction!r}", name)
    axis = norm_axis(public, axis, x.ndim, name)
    return apply_op(
        "arg_sort" if indices else "sort",
        _lower_sort,
        [x],
        attrs={"axis": axis, "descending": order is SortDirection.DESCENDING, "indices": indices},
        name=name,
        prefix=prefix,
        real_shape=_SORT_REAL,
    )


def sort(
    input: Blob,
    axis: int = -1,
    direction: str = "ASCENDING",  # noqa: A002
    name: str | None = None,
) -> Blob:
    """The values of ``input`` sorted along ``axis``."""
    return _sort("flow.sort", "Sort", False, input, axis, direction, name)


def argsort(
    input: Blob,
    axis: int = -1,
    direction: str = "ASCENDING",  # noqa: A002
    name: str | None = None,
) -> Blob:
    """int32 indices that sort ``input`` along ``axis`` (ties in index order)."""
    return _sort("flow.argsort", "ArgSort", True, input, axis, direction, name)


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
        fail(
            public, f"targets must be 1-D integers, got {targets.shape} {targets.dtype.name}", name
        )
    if predictions.ndim != 2 or predictions.shape[0] != targets.shape[0]:
        fail(
            public,
            f"predictions must be (batch, classes) with batch {targets.shape[0]}, "
            f"got {predictions.shape}",
            name,
        )
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        fail(public, f"k must be an int >= 1, got {k!r}", name)
    return apply_op(
        "in_top_k",
        _lower_in_top_k,
        [targets, predictions],
        attrs={"k": k},
        name=name,
        prefix="InTopK",
        real_shape=_IN_TOP_K_REAL,
    )


def _lower_argmax(x, *, axis):
    out = jnp.argmax(x, axis=axis).astype(jnp.int32)
    return out.reshape((1,)) if out.ndim == 0 else out


def _masked_argmax(x, *, real, axis):
    return _lower_argmax(
        jnp.where(valid_mask(real[0], x.shape, [axis]), x, lowest(x.dtype)), axis=axis
    )


def _argmax_real(shapes, padded, *, axis):
    out = shapes[0][:axis] + shapes[0][axis + 1 :]
    if 0 in shapes[0][axis : axis + 1]:
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
    return apply_op(
        "argmax",
        _lower_argmax,
        [input],
        attrs={"axis": axis},
        name=name,
        prefix="ArgMax",
        real_shape=_ARGMAX_REAL,
    )


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
    return shapes[0][:axis] + (min(k, shapes[0][axis]),) + shapes[0][axis + 1 :]


_TOP_K_REAL = RealShape(_top_k_real, _masked_top_k)


def top_k(
    input: Blob,
    axis: int = -1,
    k: int = 1,
    sorted: bool = True,  # noqa: A002
    name: str | None = None,
) -> Blob:
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
    return apply_op(
        "top_k",
        _lower_top_k,
        [input],
        attrs={"axis": axis, "k": min(k, input.shape[axis]), "sorted": bool(sorted)},
        name=name,
        prefix="TopK",
        real_shape=_TOP_K_REAL,
    )
