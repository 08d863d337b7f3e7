"""Slices: ``flow.slice``/``slice_v2``, ``slice_update``, ``x[...]`` and ``reverse``. The
pads (``flow.pad``, ``*_pad2d``) are in ``_pad``.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from ..graph import Blob, RealShape, apply_op
from ._util import check_name, fail, norm_axes, require_blob


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
    return tuple(
        len(range(*builtins.slice(a, b, c).indices(n)))
        for n, a, b, c in zip(shapes[0], start, stop, step)
    )


_SLICE_REAL = RealShape(_slice_real, _masked_slice)


def slice_v2(
    x: Blob, slice_tup_list: Sequence[Sequence[int | None]], name: str | None = None
) -> Blob:
    """Slices each axis by a ``(start, stop, step)`` tuple; missing trailing axes are kept."""
    public = "flow.slice_v2"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if not isinstance(slice_tup_list, (list, tuple)) or len(slice_tup_list) > x.ndim:
        fail(
            public,
            f"slice_tup_list must be a list of at most {x.ndim} (start, stop, step) "
            f"tuples, got {slice_tup_list!r}",
            name,
        )
    tups = list(slice_tup_list) + [(None, None, None)] * (x.ndim - len(slice_tup_list))
    start, stop, step = [], [], []
    for d, (tup, size) in enumerate(zip(tups, x.shape)):
        if (
            not isinstance(tup, (list, tuple))
            or len(tup) != 3
            or not all(
                v is None or (isinstance(v, (int, np.integer)) and not isinstance(v, bool))
                for v in tup
            )
        ):
            fail(
                public,
                f"entry {d} must be a (start, stop, step) tuple of ints or None, got {tup!r}",
                name,
            )
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
    return apply_op(
        "slice",
        _lower_slice,
        [x],
        attrs={"start": tuple(start), "stop": tuple(stop), "step": tuple(step)},
        name=name,
        prefix="Slice",
        real_shape=_SLICE_REAL,
    )


def slice(
    x: Blob,
    begin: Sequence[int | None],
    size: Sequence[int | None],  # noqa: A001
    name: str | None = None,
) -> Blob:
    """Takes ``size[i]`` elements from ``begin[i]`` on every axis (None/-1 size: to the end;
    a size running past the end stops there). A None begin is 0."""
    public = "flow.slice"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    for what, seq in (("begin", begin), ("size", size)):
        if not isinstance(seq, (list, tuple)) or len(seq) != x.ndim:
            fail(
                public,
                f"{what} must be a list/tuple with one entry per axis of {x.shape}, got {seq!r}",
                name,
            )
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


def _lower_getitem(x, *, key):
    return x[key]


def getitem(x: Blob, key: Any) -> Blob:
    """``blob[key]`` with ints, slices, ``...`` and ``None`` (new axis), like NumPy basic
    indexing."""
    public = "Blob.__getitem__"
    items = key if isinstance(key, tuple) else (key,)
    if sum(k is Ellipsis for k in items) > 1:
        fail(public, f"an index can only have a single ellipsis, got {key!r}")
    consumed = sum(1 for k in items if k is not None and k is not Ellipsis)
    if consumed > x.ndim:
        fail(public, f"too many indices for {x.lbn} of rank {x.ndim}: {key!r}")
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items = items[:at] + (builtins.slice(None),) * (x.ndim - consumed) + items[at + 1 :]
    norm: list[Any] = []
    dim = 0
    for k in items:
        if k is None:
            norm.append(None)
            continue
        if isinstance(k, Blob):
            fail(
                public,
                "indexing with a blob is not supported; use flow.gather(params, indices, axis=...)",
            )
        size = x.shape[dim]
        if isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            if not -size <= k < size:
                fail(
                    public,
                    f"index {int(k)} is out of range for axis {dim} of size {size} "
                    f"({x.lbn} has shape {x.shape})",
                )
            norm.append(int(k) % size)
        elif isinstance(k, builtins.slice):
            parts = (k.start, k.stop, k.step)
            if not all(
                p is None or (isinstance(p, (int, np.integer)) and not isinstance(p, bool))
                for p in parts
            ):
                fail(public, f"slice bounds must be ints or None, got {k!r}")
            if k.step == 0:
                fail(public, f"slice step cannot be 0 (axis {dim})")
            norm.append(builtins.slice(*(None if p is None else int(p) for p in parts)))
        else:
            fail(
                public,
                f"unsupported index {k!r} of type {type(k).__name__}: use ints, "
                "slices, ... and None",
            )
        dim += 1
    return apply_op("getitem", _lower_getitem, [x], attrs={"key": tuple(norm)}, prefix="Slice")


def slice_tuples(public: str, slice_tup_list, shape, name) -> tuple[builtins.slice, ...]:
    """OneFlow's ``check_slice_tup_list``: one ``(start, stop, step)`` per leading axis."""
    if not isinstance(slice_tup_list, (list, tuple)) or len(slice_tup_list) > len(shape):
        fail(
            public,
            f"slice_tup_list must be a list of at most {len(shape)} (start, stop, step)"
            f" tuples, got {slice_tup_list!r}",
            name,
        )
    tups = list(slice_tup_list) + [(None, None, None)] * (len(shape) - len(slice_tup_list))
    out = []
    for d, (tup, size) in enumerate(zip(tups, shape)):
        if (
            not isinstance(tup, (list, tuple))
            or len(tup) != 3
            or not all(
                v is None or (isinstance(v, (int, np.integer)) and not isinstance(v, bool))
                for v in tup
            )
        ):
            fail(
                public,
                f"entry {d} must be a (start, stop, step) tuple of ints or None, got {tup!r}",
                name,
            )
        start, stop, step = (None if v is None else int(v) for v in tup)
        if step == 0:
            fail(public, f"slice step of axis {d} cannot be 0", name)
        if start is not None and not -size <= start < size:
            fail(public, f"slice start {start} of axis {d} is out of range [-{size}, {size})", name)
        if stop is not None and not -size - 1 <= stop <= size:
            fail(
                public, f"slice stop {stop} of axis {d} is out of range [{-size - 1}, {size}]", name
            )
        out.append(builtins.slice(start, stop, step))
    return tuple(out)


def _lower_slice_update(x, update, *, key):
    return x.at[key].set(update)


def slice_update(
    x: Blob, update: Blob, slice_tup_list: Sequence[Sequence[int | None]], name: str | None = None
) -> Blob:
    """``x`` with ``x[start:stop:step, ...] = update`` (a new blob; ``x`` is unchanged).

    Gradients: ``x`` gets the output gradient outside the slice, ``update`` the part inside.
    """
    public = "flow.slice_update"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    require_blob(public, update, "update", name)
    key = slice_tuples(public, slice_tup_list, x.shape, name)
    want = tuple(len(range(*s.indices(n))) for s, n in zip(key, x.shape))
    if update.shape != want:
        fail(
            public,
            f"update has shape {update.shape}, but the slice {list(slice_tup_list)} of "
            f"x {x.shape} has shape {want}",
            name,
        )
    if update.dtype != x.dtype:
        fail(
            public, f"update ({update.dtype.name}) must have the dtype of x ({x.dtype.name})", name
        )
    return apply_op(
        "slice_update",
        _lower_slice_update,
        [x, update],
        attrs={"key": key},
        name=name,
        prefix="SliceUpdate",
    )


def _lower_reverse(x, *, axes):
    return jnp.flip(x, axes)


def reverse(input: Blob, axis: int | Sequence[int], name: str | None = None) -> Blob:  # noqa: A002
    """``input`` with the order of elements along ``axis`` reversed."""
    public = "flow.reverse"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    axes = norm_axes(public, axis, input.ndim, name)
    return apply_op(
        "reverse", _lower_reverse, [input], attrs={"axes": axes}, name=name, prefix="Reverse"
    )
