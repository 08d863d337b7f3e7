"""Indexed reads and writes: ``flow.gather_nd``, ``flow.slice_update`` and ``flow.identity_n``.

``flow.gather`` (with ``batch_dims``) lives with the other selection ops in ``_array``.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence

import numpy as np

from ..graph import Blob, RealShape, apply_op
from ._util import check_name, fail, require_blob


def _lower_gather_nd(params, indices):
    k = indices.shape[-1]
    flat = indices.reshape(-1, k)
    picked = params[tuple(flat[:, i] for i in range(k))]  # JAX clamps out-of-range indices
    out = picked.reshape(indices.shape[:-1] + params.shape[k:])
    return out.reshape((1,)) if out.ndim == 0 else out


def _gather_nd_real(shapes, padded, **_):
    params, indices = shapes
    k = indices[-1]
    if padded[1] is not None and k != padded[1][-1]:
        raise ValueError(f"the index tuples in the last axis of indices have real width {k}, "
                         f"not the declared {padded[1][-1]}")
    return indices[:-1] + params[k:]


# Padded index rows read some element; their results lie in the padding that is cut off.
_GATHER_ND_REAL = RealShape(_gather_nd_real)


def gather_nd(params: Blob, indices: Blob, name: str | None = None) -> Blob:
    """Slices of ``params`` at the index tuples in the last axis of ``indices``.

    With ``k = indices.shape[-1]``, the result has shape
    ``indices.shape[:-1] + params.shape[k:]`` (a 0-d result is ``(1,)``, as OneFlow).
    OneFlow leaves out-of-range indices undefined; flowjob clamps them into range.
    """
    public = "flow.gather_nd"
    name = check_name(public, name)
    require_blob(public, params, "params", name)
    require_blob(public, indices, "indices", name)
    if indices.dtype.np_dtype.kind not in "iu":
        fail(public, f"indices must be integers, got {indices.dtype.name}", name)
    if indices.ndim < 1 or not 1 <= indices.shape[-1] <= params.ndim:
        fail(public, f"the last axis of indices {indices.shape} holds index tuples and must "
                     f"have size 1..{params.ndim} (the rank of params {params.shape})", name)
    return apply_op("gather_nd", _lower_gather_nd, [params, indices], name=name,
                    prefix="GatherNd", real_shape=_GATHER_ND_REAL)


def _slices(public: str, slice_tup_list, shape, name) -> tuple[builtins.slice, ...]:
    """OneFlow's ``check_slice_tup_list``: one ``(start, stop, step)`` per leading axis."""
    if not isinstance(slice_tup_list, (list, tuple)) or len(slice_tup_list) > len(shape):
        fail(public, f"slice_tup_list must be a list of at most {len(shape)} (start, stop, step)"
                     f" tuples, got {slice_tup_list!r}", name)
    tups = list(slice_tup_list) + [(None, None, None)] * (len(shape) - len(slice_tup_list))
    out = []
    for d, (tup, size) in enumerate(zip(tups, shape)):
        if not isinstance(tup, (list, tuple)) or len(tup) != 3 or not all(
                v is None or (isinstance(v, (int, np.integer)) and not isinstance(v, bool))
                for v in tup):
            fail(public, f"entry {d} must be a (start, stop, step) tuple of ints or None, "
                         f"got {tup!r}", name)
        start, stop, step = (None if v is None else int(v) for v in tup)
        if step == 0:
            fail(public, f"slice step of axis {d} cannot be 0", name)
        if start is not None and not -size <= start < size:
            fail(public, f"slice start {start} of axis {d} is out of range [-{size}, {size})",
                 name)
        if stop is not None and not -size - 1 <= stop <= size:
            fail(public, f"slice stop {stop} of axis {d} is out of range [{-size - 1}, {size}]",
                 name)
        out.append(builtins.slice(start, stop, step))
    return tuple(out)


def _lower_slice_update(x, update, *, key):
    return x.at[key].set(update)


def slice_update(x: Blob, update: Blob, slice_tup_list: Sequence[Sequence[int | None]],
                 name: str | None = None) -> Blob:
    """``x`` with ``x[start:stop:step, ...] = update`` (a new blob; ``x`` is unchanged).

    Gradients: ``x`` gets the output gradient outside the slice, ``update`` the part inside.
    """
    public = "flow.slice_update"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    require_blob(public, update, "update", name)
    key = _slices(public, slice_tup_list, x.shape, name)
    want = tuple(len(range(*s.indices(n))) for s, n in zip(key, x.shape))
    if update.shape != want:
        fail(public, f"update has shape {update.shape}, but the slice {list(slice_tup_list)} of "
                     f"x {x.shape} has shape {want}", name)
    if update.dtype != x.dtype:
        fail(public, f"update ({update.dtype.name}) must have the dtype of x ({x.dtype.name})",
             name)
    return apply_op("slice_update", _lower_slice_update, [x, update], attrs={"key": key},
                    name=name, prefix="SliceUpdate")


def _lower_identity_n(*xs):
    return tuple(xs)


_IDENTITY_N_REAL = RealShape(lambda shapes, padded: list(shapes))


def identity_n(inputs: Sequence[Blob], name: str | None = None) -> list[Blob]:
    """A new blob with the same value for each of ``inputs`` (one op, ``IdentityN_<n>``)."""
    public = "flow.identity_n"
    name = check_name(public, name)
    if not isinstance(inputs, (list, tuple)) or not inputs:
        fail(public, f"inputs must be a non-empty list of blobs, got {inputs!r}", name)
    for i, b in enumerate(inputs):
        require_blob(public, b, f"inputs[{i}]", name)
    out = apply_op("tuple_identity", _lower_identity_n, list(inputs), name=name,
                   prefix="IdentityN", real_shape=_IDENTITY_N_REAL)
    return list(out) if isinstance(out, tuple) else [out]
