"""Joining and splitting blobs along an axis: ``flow.concat``, ``stack`` and ``split``."""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from ..graph import Blob, RealShape, apply_op
from ._util import check_name, fail, norm_axis, require_blob, shape_tuple


def _lower_concat(*xs, axis, max_dim_size=None):
    return _resize(jnp.concatenate(xs, axis=axis), axis, max_dim_size)


def _resize(x, axis, size):
    """``x`` cut or zero-padded to ``size`` along ``axis`` (a dynamic concat's max_dim_size)."""
    if size is None or size == x.shape[axis]:
        return x
    if size < x.shape[axis]:
        return jax.lax.slice_in_dim(x, 0, size, axis=axis)
    return jnp.pad(x, [(0, size - x.shape[axis]) if d == axis else (0, 0) for d in range(x.ndim)])


def _masked_concat(*xs, real, axis, max_dim_size=None):
    # Each input goes where the real parts before it end, over their padding.
    out = jnp.zeros(jnp.concatenate(xs, axis=axis).shape, xs[0].dtype)
    offset = jnp.zeros((), jnp.int32)
    for x, r in zip(xs, real):
        out = jax.lax.dynamic_update_slice_in_dim(out, x, offset, axis)
        offset = offset + r[axis]
    return _resize(out, axis, max_dim_size)


def _concat_real(shapes, padded, *, axis, max_dim_size=None):
    first = shapes[0]
    total = sum(s[axis] for s in shapes)
    if max_dim_size is not None and total > max_dim_size:
        raise ValueError(
            f"the real sizes along axis {axis} add up to {total}, more than "
            f"max_dim_size {max_dim_size}"
        )
    for i, s in enumerate(shapes):
        if any(s[d] != first[d] for d in range(len(first)) if d != axis):
            raise ValueError(
                f"inputs[{i}] has real shape {s}, inputs[0] {first}: they must "
                f"agree on every axis but the concatenation axis {axis}"
            )
    return first[:axis] + (total,) + first[axis + 1 :]


_CONCAT_REAL = RealShape(_concat_real, _masked_concat)


def concat(
    inputs: Sequence[Blob] | None = None,
    axis: int = 0,
    max_dim_size: int | None = None,
    name: str | None = None,
    values: Sequence[Blob] | None = None,
) -> Blob:
    """Joins blobs of equal rank along ``axis``; other dimensions must match."""
    public = "flow.concat"
    name = check_name(public, name)
    if values is not None:
        if inputs is not None:
            fail(public, "pass either inputs or the deprecated values, not both", name)
        inputs = values
    if not isinstance(inputs, (list, tuple)) or not inputs:
        fail(public, f"inputs must be a non-empty list of blobs, got {inputs!r}", name)
    for i, x in enumerate(inputs):
        require_blob(public, x, f"inputs[{i}]", name)
    first = inputs[0]
    axis = norm_axis(public, axis, first.ndim, name)
    for i, x in enumerate(inputs):
        same = x.ndim == first.ndim and all(
            x.shape[d] == first.shape[d] for d in range(first.ndim) if d != axis
        )
        if not same:
            fail(
                public,
                f"inputs[{i}] has shape {x.shape}, incompatible with inputs[0] "
                f"{first.shape} for concatenation along axis {axis}",
                name,
            )
    total = sum(x.shape[axis] for x in inputs)
    attrs = {"axis": axis}
    if max_dim_size is not None and any(x.is_dynamic for x in inputs):
        # OneFlow: the dynamic result holds at most max_dim_size along axis (its padded size).
        attrs["max_dim_size"] = int(max_dim_size)
    elif max_dim_size is not None and max_dim_size < total:
        fail(
            public,
            f"max_dim_size {max_dim_size} is smaller than the concatenated size {total}",
            name,
        )
    if len(inputs) == 1:
        return first
    return apply_op(
        "concat",
        _lower_concat,
        list(inputs),
        attrs=attrs,
        name=name,
        prefix="Concat",
        real_shape=_CONCAT_REAL,
    )


def stack(inputs: Sequence[Blob], axis: int = 0, name: str | None = None) -> Blob:
    """Stacks blobs of one shape along a new axis."""
    public = "flow.stack"
    name = check_name(public, name)
    if not isinstance(inputs, (list, tuple)) or not inputs:
        fail(public, f"inputs must be a non-empty list of blobs, got {inputs!r}", name)
    for i, x in enumerate(inputs):
        require_blob(public, x, f"inputs[{i}]", name)
        if x.shape != inputs[0].shape:
            fail(
                public,
                f"all inputs need one shape: inputs[0] is {inputs[0].shape}, "
                f"inputs[{i}] is {x.shape}",
                name,
            )
    axis = norm_axis(public, axis, inputs[0].ndim + 1, name)
    return apply_op(
        "stack", _lower_stack, list(inputs), attrs={"axis": axis}, name=name, prefix="Stack"
    )


def _lower_stack(*xs, axis):
    return jnp.stack(xs, axis=axis)


def _lower_split(x, *, axis, bounds):
    return tuple(jnp.split(x, bounds, axis=axis))


def split(
    x: Blob, num_or_size_splits: int | Sequence[int], axis: int = 0, name: str | None = None
) -> list[Blob]:
    """Splits ``x`` along ``axis`` into equal parts (an int) or parts of the given sizes."""
    public = "flow.split"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    axis = norm_axis(public, axis, x.ndim, name)
    dim = x.shape[axis]
    if isinstance(num_or_size_splits, int) and not isinstance(num_or_size_splits, bool):
        n = num_or_size_splits
        if n < 1 or dim % n:
            fail(public, f"cannot split axis {axis} of size {dim} into {n} equal parts", name)
        sizes = [dim // n] * n
    else:
        sizes = list(
            shape_tuple(
                public, num_or_size_splits, "num_or_size_splits", name, allow_minus_one=True
            )
        )
        if sizes.count(-1) == 1:
            sizes[sizes.index(-1)] = dim - sum(s for s in sizes if s != -1)
        if sizes.count(-1) > 1 or sum(sizes) != dim or any(s < 0 for s in sizes):
            fail(
                public,
                f"split sizes {tuple(num_or_size_splits)} do not add up to the size "
                f"{dim} of axis {axis}",
                name,
            )
    bounds = tuple(int(b) for b in np.cumsum(sizes)[:-1])
    out = apply_op(
        "split",
        _lower_split,
        [x],
        attrs={"axis": axis, "bounds": bounds},
        name=name,
        prefix="Split",
    )
    return list(out) if isinstance(out, tuple) else [out]
