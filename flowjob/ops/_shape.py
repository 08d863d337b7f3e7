"""Ops that move data between shapes: reshape, transpose, concat/split, slicing, padding."""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from ..graph import Blob, RealShape, apply_op
from ._util import check_name, fail, int_list, norm_axis, require_blob, shape_tuple


def _lower_reshape(x, *, shape):
    return jnp.reshape(x, shape)


def reshape(x: Blob, shape: Sequence[int], name: str | None = None) -> Blob:
    """``x`` with a new shape of the same element count; one dimension may be ``-1``."""
    public = "flow.reshape"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    dims = list(shape_tuple(public, shape, name=name, allow_minus_one=True))
    if dims.count(-1) > 1:
        fail(public, f"at most one dimension may be -1, got {tuple(shape)}", name)
    if any(d == 0 for d in dims):
        fail(public, f"dimensions must be positive or -1, got {tuple(shape)}", name)
    known = math.prod(d for d in dims if d != -1)
    count = x.numel()
    if -1 in dims:
        if count % known:
            fail(public, f"cannot reshape {x.lbn} of shape {x.shape} ({count} elements) into "
                         f"{tuple(shape)}: {count} is not divisible by {known}", name)
        dims[dims.index(-1)] = count // known
    elif known != count:
        fail(public, f"cannot reshape {x.lbn} of shape {x.shape} ({count} elements) into "
                     f"{tuple(shape)} ({known} elements)", name)
    return apply_op("reshape", _lower_reshape, [x], attrs={"shape": tuple(dims)}, name=name,
                    prefix="Reshape")


def flatten(input: Blob, start_dim: int = 0, end_dim: int = -1,  # noqa: A002
            name: str | None = None) -> Blob:
    """Merges the dimensions ``start_dim..end_dim`` (inclusive) into one."""
    public = "flow.flatten"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    start = norm_axis(public, start_dim, input.ndim, name, "start_dim")
    end = norm_axis(public, end_dim, input.ndim, name, "end_dim")
    if start > end:
        fail(public, f"start_dim {start_dim} comes after end_dim {end_dim}", name)
    shape = input.shape[:start] + (math.prod(input.shape[start:end + 1]),) + input.shape[end + 1:]
    return apply_op("flatten", _lower_reshape, [input], attrs={"shape": shape}, name=name,
                    prefix="Flatten")


def _lower_transpose(x, *, perm):
    return jnp.transpose(x, perm)


def transpose(a: Blob, perm: Sequence[int] | None = None, conjugate: bool = False,
              batch_axis_non_change: bool = False, name: str | None = None) -> Blob:
    """Permutes the axes of ``a``: output axis ``i`` is input axis ``perm[i]``."""
    public = "flow.transpose"
    name = check_name(public, name)
    require_blob(public, a, "a", name)
    if conjugate:
        fail(public, "conjugate=True is not supported (blobs are real)", name)
    if perm is None:
        perm = tuple(reversed(range(a.ndim)))
    if not isinstance(perm, (list, tuple)):
        fail(public, f"perm must be a list or tuple of ints, got {perm!r}", name)
    axes = tuple(norm_axis(public, p, a.ndim, name, "perm entry") for p in perm)
    if sorted(axes) != list(range(a.ndim)):
        fail(public, f"perm {tuple(perm)} is not a permutation of the {a.ndim} axes of {a.shape}",
             name)
    return apply_op("transpose", _lower_transpose, [a], attrs={"perm": axes}, name=name,
                    prefix="Transpose")


def _lower_expand_dims(x, *, axis):
    return jnp.expand_dims(x, axis)


def expand_dims(input: Blob, axis: int, name: str | None = None) -> Blob:  # noqa: A002
    """Inserts a dimension of size 1 at ``axis`` (``-rank-1 <= axis <= rank``)."""
    public = "flow.expand_dims"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    axis = norm_axis(public, axis, input.ndim + 1, name)
    return apply_op("expand_dims", _lower_expand_dims, [input], attrs={"axis": axis}, name=name,
                    prefix="ExpandDims")


def _lower_squeeze(x, *, axes):
    out = jnp.squeeze(x, axes)
    return out.reshape((1,)) if out.ndim == 0 else out


def squeeze(input: Blob, axis: Sequence[int] | int | None = None,  # noqa: A002
            name: str | None = None) -> Blob:
    """Removes dimensions of size 1: those in ``axis``, or all of them when it is None. Removing
    every dimension gives shape ``(1,)``, as OneFlow."""
    public = "flow.squeeze"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    if axis is None:
        axes = tuple(i for i, d in enumerate(input.shape) if d == 1)
    else:
        items = axis if isinstance(axis, (list, tuple)) else [axis]
        axes = tuple(sorted({norm_axis(public, a, input.ndim, name) for a in items}))
        bad = [a for a in axes if input.shape[a] != 1]
        if bad:
            fail(public, f"cannot squeeze axis {bad[0]} of shape {input.shape}: its size is "
                         f"{input.shape[bad[0]]}, not 1", name)
    return apply_op("squeeze", _lower_squeeze, [input], attrs={"axes": axes}, name=name,
                    prefix="Squeeze")


def _lower_concat(*xs, axis, max_dim_size=None):
    return _resize(jnp.concatenate(xs, axis=axis), axis, max_dim_size)


def _resize(x, axis, size):
    """``x`` cut or zero-padded to ``size`` along ``axis`` (a dynamic concat's max_dim_size)."""
    if size is None or size == x.shape[axis]:
        return x
    if size < x.shape[axis]:
        return jax.lax.slice_in_dim(x, 0, size, axis=axis)
    return jnp.pad(x, [(0, size - x.shape[axis]) if d == axis else (0, 0)
                       for d in range(x.ndim)])


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
        raise ValueError(f"the real sizes along axis {axis} add up to {total}, more than "
                         f"max_dim_size {max_dim_size}")
    for i, s in enumerate(shapes):
        if any(s[d] != first[d] for d in range(len(first)) if d != axis):
            raise ValueError(f"inputs[{i}] has real shape {s}, inputs[0] {first}: they must "
                             f"agree on every axis but the concatenation axis {axis}")
    return first[:axis] + (total,) + first[axis + 1:]


_CONCAT_REAL = RealShape(_concat_real, _masked_concat)


def concat(inputs: Sequence[Blob] | None = None, axis: int = 0, max_dim_size: int | None = None,
           name: str | None = None, values: Sequence[Blob] | None = None) -> Blob:
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
            x.shape[d] == first.shape[d] for d in range(first.ndim) if d != axis)
        if not same:
            fail(public, f"inputs[{i}] has shape {x.shape}, incompatible with inputs[0] "
                         f"{first.shape} for concatenation along axis {axis}", name)
    total = sum(x.shape[axis] for x in inputs)
    attrs = {"axis": axis}
    if max_dim_size is not None and any(x.is_dynamic for x in inputs):
        # OneFlow: the dynamic result holds at most max_dim_size along axis (its padded size).
        attrs["max_dim_size"] = int(max_dim_size)
    elif max_dim_size is not None and max_dim_size < total:
        fail(public, f"max_dim_size {max_dim_size} is smaller than the concatenated size "
                     f"{total}", name)
    if len(inputs) == 1:
        return first
    return apply_op("concat", _lower_concat, list(inputs), attrs=attrs, name=name,
                    prefix="Concat", real_shape=_CONCAT_REAL)


def stack(inputs: Sequence[Blob], axis: int = 0, name: str | None = None) -> Blob:
    """Stacks blobs of one shape along a new axis."""
    public = "flow.stack"
    name = check_name(public, name)
    if not isinstance(inputs, (list, tuple)) or not inputs:
        fail(public, f"inputs must be a non-empty list of blobs, got {inputs!r}", name)
    for i, x in enumerate(inputs):
        require_blob(public, x, f"inputs[{i}]", name)
        if x.shape != inputs[0].shape:
            fail(public, f"all inputs need one shape: inputs[0] is {inputs[0].shape}, "
                         f"inputs[{i}] is {x.shape}", name)
    axis = norm_axis(public, axis, inputs[0].ndim + 1, name)
    return apply_op("stack", _lower_stack, list(inputs), attrs={"axis": axis}, name=name,
                    prefix="Stack")


def _lower_stack(*xs, axis):
    return jnp.stack(xs, axis=axis)


def _lower_split(x, *, axis, bounds):
    return tuple(jnp.split(x, bounds, axis=axis))


def split(x: Blob, num_or_size_splits: int | Sequence[int], axis: int = 0,
          name: str | None = None) -> list[Blob]:
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
        sizes = list(shape_tuple(public, num_or_size_splits, "num_or_size_splits", name,
                                 allow_minus_one=True))
        if sizes.count(-1) == 1:
            sizes[sizes.index(-1)] = dim - sum(s for s in sizes if s != -1)
        if sizes.count(-1) > 1 or sum(sizes) != dim or any(s < 0 for s in sizes):
            fail(public, f"split sizes {tuple(num_or_size_splits)} do not add up to the size "
                         f"{dim} of axis {axis}", name)
    bounds = tuple(int(b) for b in np.cumsum(sizes)[:-1])
    out = apply_op("split", _lower_split, [x], attrs={"axis": axis, "bounds": bounds}, name=name,
                   prefix="Split")
    return list(out) if isinstance(out, tuple) else [out]


def _lower_slice(x, *, start, stop, step):
    return x[tuple(builtins.slice(a, b, c) for a, b, c in zip(start, stop, step))]


def _masked_slice(x, *, real, start, stop, step):
    # Starts and stops count from the real end; out-of-range rows are cut off on the host.
    for d, (a, b, c) in enumerate(zip(start, stop, step)):
        n = real[0][d]
        c = 1 if c is None else c
        size = len(range(*builtins.slice(a, b, c).indices(x.shape[d])))
        if c > 0:
            first = 0 if a is None else (a if a >= 0 else jnp.maximum(a + n, 0))
        else:
            first = n - 1 if a is None else (jnp.minimum(a, n - 1) if a >= 0 else a + n)
        index = jnp.clip(first + c * jnp.arange(size), 0, x.shape[d] - 1)
        x = jnp.take(x, index, axis=d)
    return x


def _slice_real(shapes, padded, *, start, stop, step):
    return tuple(len(range(*builtins.slice(a, b, c).indices(n)))
                 for n, a, b, c in zip(shapes[0], start, stop, step))


_SLICE_REAL = RealShape(_slice_real, _masked_slice)


def slice_v2(x: Blob, slice_tup_list: Sequence[Sequence[int | None]],
             name: str | None = None) -> Blob:
    """Slices each axis by a ``(start, stop, step)`` tuple; missing trailing axes are kept."""
    public = "flow.slice_v2"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if not isinstance(slice_tup_list, (list, tuple)) or len(slice_tup_list) > x.ndim:
        fail(public, f"slice_tup_list must be a list of at most {x.ndim} (start, stop, step) "
                     f"tuples, got {slice_tup_list!r}", name)
    tups = list(slice_tup_list) + [(None, None, None)] * (x.ndim - len(slice_tup_list))
    start, stop, step = [], [], []
    for d, (tup, size) in enumerate(zip(tups, x.shape)):
        if not isinstance(tup, (list, tuple)) or len(tup) != 3 or not all(
                v is None or (isinstance(v, (int, np.integer)) and not isinstance(v, bool))
                for v in tup):
            fail(public, f"entry {d} must be a (start, stop, step) tuple of ints or None, "
                         f"got {tup!r}", name)
        a, b, c = (None if v is None else int(v) for v in tup)
        if c == 0:
            fail(public, f"slice step of axis {d} cannot be 0", name)
        if a is not None and not -size <= a < size:
            fail(public, f"slice start {a} of axis {d} is out of range [-{size}, {size})", name)
        if b is not None and not -size - 1 <= b <= size:
            fail(public, f"slice stop {b} of axis {d} is out of range [{-size - 1}, {size}]", name)
        start.append(a)
        stop.append(b)
        step.append(c)
    return apply_op("slice", _lower_slice, [x],
                    attrs={"start": tuple(start), "stop": tuple(stop), "step": tuple(step)},
                    name=name, prefix="Slice", real_shape=_SLICE_REAL)


def slice(x: Blob, begin: Sequence[int | None], size: Sequence[int | None],  # noqa: A001
          name: str | None = None) -> Blob:
    """Takes ``size[i]`` elements from ``begin[i]`` on every axis (None/-1 size: to the end;
    a size running past the end stops there). A None begin is 0."""
    public = "flow.slice"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    for what, seq in (("begin", begin), ("size", size)):
        if not isinstance(seq, (list, tuple)) or len(seq) != x.ndim:
            fail(public, f"{what} must be a list/tuple with one entry per axis of {x.shape}, "
                         f"got {seq!r}", name)
        if not all(v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in seq):
            fail(public, f"entries of {what} must be ints or None, got {seq!r}", name)
    tups = []
    for d, (b, s, dim) in enumerate(zip(begin, size, x.shape)):
        if b is not None and not -dim <= b < dim:
            fail(public, f"begin {b} of axis {d} is out of range [-{dim}, {dim})", name)
        start = 0 if b is None else b % dim
        if s is None or s == -1:
            stop = None
        elif s <= 0 or s > dim:
            fail(public, f"size {s} of axis {d} is invalid: expected -1, None or 1..{dim}", name)
        else:
            stop = min(start + s, dim)  # OneFlow clips a slice running past the end
        tups.append((start, stop, 1))
    return slice_v2(x, tups, name=name)


def _lower_pad(x, *, paddings, constant_value):
    return jnp.pad(x, paddings, constant_values=jnp.asarray(constant_value, x.dtype))


def pad_constant(public: str, x: Blob, value, name: str | None):
    """OneFlow's attribute: a float for floating blobs, ``int(value)`` for integer blobs, which
    must fit the dtype (flowjob checks; OneFlow wrapped around silently)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        fail(public, f"constant_value must be an int or float, got {value!r}", name)
    if x.dtype.is_floating:
        return builtins.float(value)
    if not np.isfinite(value):
        fail(public, f"constant_value {value} cannot pad the {x.dtype.name} blob {x.lbn}", name)
    info = np.iinfo(x.dtype.np_dtype)
    if not info.min <= int(value) <= info.max:
        fail(public, f"constant_value {value} does not fit the {x.dtype.name} blob {x.lbn} "
                     f"(range {info.min}..{info.max})", name)
    return int(value)


def pad(x: Blob, paddings: Sequence[Sequence[int]], constant_value: float = 0,
        name: str | None = None) -> Blob:
    """Pads every axis with ``paddings[i] = (before, after)`` copies of ``constant_value``."""
    public = "flow.pad"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if not isinstance(paddings, (list, tuple)) or len(paddings) != x.ndim:
        fail(public, f"paddings must have one (before, after) pair per axis of {x.shape}, "
                     f"got {paddings!r}", name)
    pairs = []
    for i, p in enumerate(paddings):
        if not isinstance(p, (list, tuple)) or len(p) != 2:
            fail(public, f"paddings[{i}] must be a (before, after) pair of ints >= 0, got {p!r}",
                 name)
        pairs.append(int_list(public, p, 2, f"paddings[{i}]", name, minimum=0))
    value = pad_constant(public, x, constant_value, name)
    return apply_op("pad", _lower_pad, [x],
                    attrs={"paddings": tuple(pairs), "constant_value": value}, name=name,
                    prefix="Pad")


def _lower_broadcast_like(x, like, *, shape, insert):
    for axis in insert:
        x = jnp.expand_dims(x, axis)
    return jnp.broadcast_to(x, shape)


def broadcast_like(x: Blob, like: Blob, broadcast_axes: Sequence[int] | None = None,
                   name: str | None = None) -> Blob:
    """Broadcasts ``x`` to the shape of ``like`` along ``broadcast_axes`` (default: all).

    ``x`` has either like's rank with size 1 on the broadcast axes, or those axes left out.
    """
    public = "flow.broadcast_like"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    require_blob(public, like, "like", name)
    axes_in = list(range(like.ndim)) if broadcast_axes is None else broadcast_axes
    if not isinstance(axes_in, (list, tuple)) or not 0 < len(axes_in) <= like.ndim:
        fail(public, "broadcast_axes must be a non-empty list of at most the rank of like "
                     f"({like.ndim}) axes, got {broadcast_axes!r}", name)
    axes = sorted({norm_axis(public, a, like.ndim, name) for a in axes_in})
    reduced = tuple(1 if d in axes else n for d, n in enumerate(like.shape))
    dropped = tuple(n for d, n in enumerate(like.shape) if d not in axes)
    if x.shape == reduced:
        insert: tuple[int, ...] = ()
    elif x.shape == dropped:
        insert = tuple(axes)
    else:
        fail(public, f"x of shape {x.shape} cannot be broadcast like {like.shape} along axes "
                     f"{tuple(axes)}: expected shape {reduced} or {dropped}", name)
    return apply_op("broadcast_like", _lower_broadcast_like, [x, like],
                    attrs={"shape": like.shape, "insert": insert}, name=name,
                    prefix="BroadcastLike")
