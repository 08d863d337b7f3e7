"""Ops that change a blob's shape but not its elements: reshape(_like), flatten, transpose,
expand_dims, squeeze, expand and the broadcasts.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence

import jax.numpy as jnp
import numpy as np

from ..graph import Blob, RealShape, apply_op
from ._util import broadcast_shape, check_name, fail, norm_axis, require_blob, shape_tuple


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
            fail(
                public,
                f"cannot reshape {x.lbn} of shape {x.shape} ({count} elements) into "
                f"{tuple(shape)}: {count} is not divisible by {known}",
                name,
            )
        dims[dims.index(-1)] = count // known
    elif known != count:
        fail(
            public,
            f"cannot reshape {x.lbn} of shape {x.shape} ({count} elements) into "
            f"{tuple(shape)} ({known} elements)",
            name,
        )
    return apply_op(
        "reshape", _lower_reshape, [x], attrs={"shape": tuple(dims)}, name=name, prefix="Reshape"
    )


def flatten(
    input: Blob,
    start_dim: int = 0,
    end_dim: int = -1,  # noqa: A002
    name: str | None = None,
) -> Blob:
    """Merges the dimensions ``start_dim..end_dim`` (inclusive) into one."""
    public = "flow.flatten"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    start = norm_axis(public, start_dim, input.ndim, name, "start_dim")
    end = norm_axis(public, end_dim, input.ndim, name, "end_dim")
    if start > end:
        fail(public, f"start_dim {start_dim} comes after end_dim {end_dim}", name)
    shape = (
        input.shape[:start] + (math.prod(input.shape[start : end + 1]),) + input.shape[end + 1 :]
    )
    return apply_op(
        "flatten", _lower_reshape, [input], attrs={"shape": shape}, name=name, prefix="Flatten"
    )


def _lower_transpose(x, *, perm):
    return jnp.transpose(x, perm)


# A padded blob's real part is its leading corner on every axis, so it stays one when permuted.
_TRANSPOSE_REAL = RealShape(lambda shapes, padded, *, perm: tuple(shapes[0][p] for p in perm))


def transpose(
    a: Blob,
    perm: Sequence[int] | None = None,
    conjugate: bool = False,
    batch_axis_non_change: bool = False,
    name: str | None = None,
) -> Blob:
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
        fail(
            public,
            f"perm {tuple(perm)} is not a permutation of the {a.ndim} axes of {a.shape}",
            name,
        )
    return apply_op(
        "transpose",
        _lower_transpose,
        [a],
        attrs={"perm": axes},
        name=name,
        prefix="Transpose",
        real_shape=_TRANSPOSE_REAL,
    )


def _lower_expand_dims(x, *, axis):
    return jnp.expand_dims(x, axis)


_EXPAND_DIMS_REAL = RealShape(
    lambda shapes, padded, *, axis: tuple(shapes[0][:axis]) + (1,) + tuple(shapes[0][axis:])
)


def _squeeze_real(shapes, padded, *, axes):
    # the squeezed axes have padded size 1: their real size is 1 (or 0: nothing to keep)
    return tuple(n for d, n in enumerate(shapes[0]) if d not in axes) or (1,)


_SQUEEZE_REAL = RealShape(_squeeze_real)


def expand_dims(input: Blob, axis: int, name: str | None = None) -> Blob:  # noqa: A002
    """Inserts a dimension of size 1 at ``axis`` (``-rank-1 <= axis <= rank``)."""
    public = "flow.expand_dims"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    axis = norm_axis(public, axis, input.ndim + 1, name)
    return apply_op(
        "expand_dims",
        _lower_expand_dims,
        [input],
        attrs={"axis": axis},
        name=name,
        prefix="ExpandDims",
        real_shape=_EXPAND_DIMS_REAL,
    )


def _lower_squeeze(x, *, axes):
    out = jnp.squeeze(x, axes)
    return out.reshape((1,)) if out.ndim == 0 else out


def squeeze(
    input: Blob,
    axis: Sequence[int] | int | None = None,  # noqa: A002
    name: str | None = None,
) -> Blob:
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
            fail(
                public,
                f"cannot squeeze axis {bad[0]} of shape {input.shape}: its size is "
                f"{input.shape[bad[0]]}, not 1",
                name,
            )
    return apply_op(
        "squeeze",
        _lower_squeeze,
        [input],
        attrs={"axes": axes},
        name=name,
        prefix="Squeeze",
        real_shape=_SQUEEZE_REAL,
    )


def _lower_broadcast_like(x, like, *, shape, insert):
    for axis in insert:
        x = jnp.expand_dims(x, axis)
    return jnp.broadcast_to(x, shape)


def broadcast_like(
    x: Blob, like: Blob, broadcast_axes: Sequence[int] | None = None, name: str | None = None
) -> Blob:
    """Broadcasts ``x`` to the shape of ``like`` along ``broadcast_axes`` (default: all).

    ``x`` has either like's rank with size 1 on the broadcast axes, or those axes left out.
    """
    public = "flow.broadcast_like"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    require_blob(public, like, "like", name)
    axes_in = list(range(like.ndim)) if broadcast_axes is None else broadcast_axes
    if not isinstance(axes_in, (list, tuple)) or not 0 < len(axes_in) <= like.ndim:
        fail(
            public,
            "broadcast_axes must be a non-empty list of at most the rank of like "
            f"({like.ndim}) axes, got {broadcast_axes!r}",
            name,
        )
    axes = sorted({norm_axis(public, a, like.ndim, name) for a in axes_in})
    reduced = tuple(1 if d in axes else n for d, n in enumerate(like.shape))
    dropped = tuple(n for d, n in enumerate(like.shape) if d not in axes)
    if x.shape == reduced:
        insert: tuple[int, ...] = ()
    elif x.shape == dropped:
        insert = tuple(axes)
    else:
        fail(
            public,
            f"x of shape {x.shape} cannot be broadcast like {like.shape} along axes "
            f"{tuple(axes)}: expected shape {reduced} or {dropped}",
            name,
        )
    return apply_op(
        "broadcast_like",
        _lower_broadcast_like,
        [x, like],
        attrs={"shape": like.shape, "insert": insert},
        name=name,
        prefix="BroadcastLike",
    )


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
    return apply_op("reshape_like", _lower_reshape_like, [x, like], name=name, prefix="ReshapeLike")


def _lower_broadcast_to(x, *, shape):
    return jnp.broadcast_to(x, shape)


def expand(x: Blob, expand_size: Sequence[int], name: str | None = None) -> Blob:
    """``x`` broadcast to ``expand_size`` (-1 keeps an axis; new axes go in front)."""
    public = "flow.expand"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if not isinstance(expand_size, (list, tuple)) or len(expand_size) < x.ndim:
        fail(public, f"expand_size must list at least {x.ndim} sizes, got {expand_size!r}", name)
    lead = len(expand_size) - x.ndim
    shape = []
    for i, size in enumerate(expand_size):
        have = x.shape[i - lead] if i >= lead else None
        if have is not None and size in (-1, have):
            shape.append(have)
        elif (have is None or have == 1) and isinstance(size, int) and size >= 1:
            shape.append(size)
        else:
            fail(
                public,
                f"cannot expand {x.shape} to {tuple(expand_size)}: axis {i} has size "
                f"{have} (only size-1 axes expand)",
                name,
            )
    return apply_op(
        "expand",
        _lower_broadcast_to,
        [x],
        attrs={"shape": tuple(shape)},
        name=name,
        prefix="Expand",
    )


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


def broadcast_to_compatible_with(
    x: Blob, compatible: Sequence[Blob], name: str | None = None
) -> Blob:
    """``x`` broadcast to the common broadcast shape of ``x`` and every ``compatible`` blob."""
    public = "flow.broadcast_to_compatible_with"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if not isinstance(compatible, (list, tuple)):
        fail(public, f"compatible must be a list of blobs, got {compatible!r}", name)
    for i, b in enumerate(compatible):
        require_blob(public, b, f"compatible[{i}]", name)
    shape = broadcast_shape(public, [x.shape, *(b.shape for b in compatible)], name)
    return apply_op(
        "broadcast_to_compatible_with",
        _lower_broadcast_compatible,
        [x, *compatible],
        attrs={"shape": shape},
        name=name,
        prefix="BroadcastToCompatibleWith",
        real_shape=_BROADCAST_REAL,
    )
