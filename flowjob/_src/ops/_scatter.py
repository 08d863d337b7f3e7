"""Scatters and segment sums: ``flow.scatter_nd``, ``tensor_scatter_nd_update/add`` and
``flow.math.unsorted_segment_sum(_like)``/``unsorted_batch_segment_sum``.

Index tuples (the last axis of ``indices``) address ``params`` as in ``flow.gather_nd``;
segment ids outside ``[0, num_segments)`` are dropped, as OneFlow's kernels do.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import jax
import jax.numpy as jnp

from ..graph import Blob, RealShape, apply_op, valid_mask
from ._util import (
    check_name,
    fail,
    norm_axis,
    require_blob,
    require_int_blob,
    shape_tuple,
    sum_dtype,
)


def _index_tuple(indices):
    k = indices.shape[-1]
    return tuple(indices[..., i] for i in range(k))


def _lower_scatter_nd(indices, updates, *, shape):
    return jnp.zeros(shape, updates.dtype).at[_index_tuple(indices)].add(updates)


def _masked_scatter_nd(indices, updates, *, real, shape):
    # Padded index rows (zeros) must add nothing: their updates become zero.
    keep = valid_mask(real[1], updates.shape)
    return _lower_scatter_nd(
        indices, jnp.where(keep, updates, jnp.zeros((), updates.dtype)), shape=shape
    )


def _scatter_nd_real(shapes, padded, *, shape):
    indices, updates = shapes
    k = indices[-1]
    if padded[0] is not None and k != padded[0][-1]:
        raise ValueError(
            f"the index tuples in the last axis of indices have real width {k}, "
            f"not the declared {padded[0][-1]}"
        )
    if tuple(updates) != tuple(indices[:-1]) + tuple(shape[k:]):
        raise ValueError(
            f"updates have real shape {updates}, indices {indices}: expected "
            f"{tuple(indices[:-1]) + tuple(shape[k:])}"
        )
    return tuple(shape)


_SCATTER_ND_REAL = RealShape(_scatter_nd_real, _masked_scatter_nd)


def _lower_tensor_scatter(params, indices, updates, *, add):
    where = params.at[_index_tuple(indices)]
    return where.add(updates) if add else where.set(updates)


def _masked_tensor_scatter(params, indices, updates, *, real, add):
    # Only the real index rows write (as OneFlow's kernel, which reads the real count): the
    # padded rows are sent out of range, where mode="drop" discards them.
    rows = valid_mask(real[1][:-1], indices.shape[:-1])
    k = indices.shape[-1]
    beyond = jnp.asarray(params.shape[:k], indices.dtype)
    where = params.at[_index_tuple(jnp.where(rows[..., None], indices, beyond))]
    return where.add(updates, mode="drop") if add else where.set(updates, mode="drop")


def _tensor_scatter_real(shapes, padded, *, add):
    params, indices, updates = shapes
    k = indices[-1]
    if padded[1] is not None and k != padded[1][-1]:
        raise ValueError(
            f"the index tuples in the last axis of indices have real width {k}, "
            f"not the declared {padded[1][-1]}"
        )
    want = tuple(indices[:-1]) + tuple(params[k:])
    if tuple(updates) != want:
        raise ValueError(
            f"updates have real shape {tuple(updates)}, indices {tuple(indices)} and params "
            f"{tuple(params)}: expected {want}"
        )
    return tuple(params)


_TENSOR_SCATTER_REAL = RealShape(_tensor_scatter_real, _masked_tensor_scatter)


def _check_nd(
    public: str, indices: Blob, updates: Blob, shape: tuple[int, ...], name: str | None
) -> None:
    require_int_blob(public, indices, "indices", name)
    require_blob(public, updates, "updates", name)
    if indices.ndim < 1 or not 1 <= indices.shape[-1] <= len(shape):
        fail(
            public,
            f"the last axis of indices {indices.shape} holds index tuples and must "
            f"have size 1..{len(shape)}",
            name,
        )
    want = indices.shape[:-1] + tuple(shape[indices.shape[-1] :])
    if updates.shape != want:
        fail(
            public,
            f"updates must have shape {want} (indices.shape[:-1] + "
            f"shape[{indices.shape[-1]}:]), got {updates.shape}",
            name,
        )


def scatter_nd(indices: Blob, updates: Blob, shape: Sequence[int], name: str | None = None) -> Blob:
    """Zeros of ``shape`` with ``updates`` added at the index tuples of ``indices``."""
    public = "flow.scatter_nd"
    name = check_name(public, name)
    dims = shape_tuple(public, shape, name=name)
    _check_nd(public, indices, updates, dims, name)
    return apply_op(
        "scatter_nd",
        _lower_scatter_nd,
        [indices, updates],
        attrs={"shape": dims},
        name=name,
        prefix="ScatterNd",
        real_shape=_SCATTER_ND_REAL,
    )


def _tensor_scatter(
    public: str, add: bool, params: Blob, indices: Blob, updates: Blob, name: str | None
) -> Blob:
    name = check_name(public, name)
    require_blob(public, params, "params", name)
    _check_nd(public, indices, updates, params.shape, name)
    if updates.dtype != params.dtype:
        fail(
            public,
            f"updates ({updates.dtype.name}) must have the dtype of params ({params.dtype.name})",
            name,
        )
    prefix = "TensorScatterNdAdd" if add else "TensorScatterNdUpdate"
    return apply_op(
        f"tensor_scatter_nd_{'add' if add else 'update'}",
        _lower_tensor_scatter,
        [params, indices, updates],
        attrs={"add": add},
        name=name,
        prefix=prefix,
        real_shape=_TENSOR_SCATTER_REAL,
    )


def tensor_scatter_nd_update(
    params: Blob, indices: Blob, updates: Blob, name: str | None = None
) -> Blob:
    """``params`` with the slices at ``indices`` replaced by ``updates``."""
    return _tensor_scatter("flow.tensor_scatter_nd_update", False, params, indices, updates, name)


def tensor_scatter_nd_add(
    params: Blob, indices: Blob, updates: Blob, name: str | None = None
) -> Blob:
    """``params`` with ``updates`` added to the slices at ``indices``."""
    return _tensor_scatter("flow.tensor_scatter_nd_add", True, params, indices, updates, name)


def _lower_segment_sum(data, ids, *, axis, num_segments):
    moved = jnp.moveaxis(data, axis, 0) if ids.ndim == 1 else None
    if moved is None:  # several id axes: flatten them into one
        lead = data.shape[:axis]
        flat = data.reshape(lead + (-1,) + data.shape[axis + ids.ndim :])
        return _lower_segment_sum(flat, ids.reshape(-1), axis=axis, num_segments=num_segments)
    wide = sum_dtype(data.dtype)
    out = jax.ops.segment_sum(
        moved.astype(wide), ids.astype(jnp.int32), num_segments=num_segments, mode="drop"
    )
    return jnp.moveaxis(out.astype(data.dtype), 0, axis)


def _segment_sum(
    public: str, data: Blob, segment_ids: Blob, num_segments: int, axis: int, name: str | None
) -> Blob:
    require_blob(public, data, "data", name)
    require_int_blob(public, segment_ids, "segment_ids", name)
    axis = norm_axis(public, axis, data.ndim, name)
    span = data.shape[axis : axis + segment_ids.ndim]
    if segment_ids.shape != span:
        fail(
            public,
            f"segment_ids {segment_ids.shape} must match data {data.shape} from axis "
            f"{axis} on ({span})",
            name,
        )
    if not isinstance(num_segments, int) or isinstance(num_segments, bool) or num_segments < 1:
        fail(public, f"num_segments must be an int >= 1, got {num_segments!r}", name)
    return apply_op(
        "unsorted_segment_sum",
        _lower_segment_sum,
        [data, segment_ids],
        attrs={"axis": axis, "num_segments": num_segments},
        name=name,
        prefix="UnsortedSegmentSum",
    )


def unsorted_segment_sum(
    data: Blob, segment_ids: Blob, num_segments: int, axis: int = 0, name: str | None = None
) -> Blob:
    """Sums the slices of ``data`` (from ``axis`` on) with equal ``segment_ids``: the result
    has ``num_segments`` rows in place of the id axes."""
    public = "flow.math.unsorted_segment_sum"
    return _segment_sum(public, data, segment_ids, num_segments, axis, check_name(public, name))


def unsorted_segment_sum_like(
    data: Blob, segment_ids: Blob, like: Blob, axis: int = 0, name: str | None = None
) -> Blob:
    """``unsorted_segment_sum`` with ``num_segments = like.shape[axis]``."""
    public = "flow.math.unsorted_segment_sum_like"
    name = check_name(public, name)
    require_blob(public, like, "like", name)
    axis_ = norm_axis(public, axis, like.ndim, name)
    return _segment_sum(public, data, segment_ids, like.shape[axis_], axis, name)


def _lower_batch_segment_sum(data, ids, *, num_segments):
    fn = functools.partial(_lower_segment_sum, axis=0, num_segments=num_segments)
    for _ in range(ids.ndim - 1):
        fn = jax.vmap(fn)
    return fn(data, ids)


def unsorted_batch_segment_sum(
    data: Blob, segment_ids: Blob, num_segments: int, name: str | None = None
) -> Blob:
    """Per batch row (every axis of ``segment_ids`` but the last), ``unsorted_segment_sum``
    along the next axis."""
    public = "flow.math.unsorted_batch_segment_sum"
    name = check_name(public, name)
    require_blob(public, data, "data", name)
    require_int_blob(public, segment_ids, "segment_ids", name)
    if data.shape[: segment_ids.ndim] != segment_ids.shape:
        fail(
            public,
            f"segment_ids {segment_ids.shape} must match the leading axes of data {data.shape}",
            name,
        )
    if not isinstance(num_segments, int) or isinstance(num_segments, bool) or num_segments < 1:
        fail(public, f"num_segments must be an int >= 1, got {num_segments!r}", name)
    return apply_op(
        "unsorted_batch_segment_sum",
        _lower_batch_segment_sum,
        [data, segment_ids],
        attrs={"num_segments": num_segments},
        name=name,
        prefix="UnsortedBatchSegmentSum",
    )
