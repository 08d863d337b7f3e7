"""Slices and paddings: ``flow.slice``/``slice_v2``, ``slice_update``, ``x[...]``,
``reverse``, ``pad`` and the NCHW ``*_pad2d`` ops (``padding`` an int or
``[left, right, top, bottom]``, PyTorch's order, as OneFlow).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from ..graph import Blob, RealShape, apply_op
from ._modes import PadMode
from ._util import check_name, fail, int_list, norm_axes, require_blob


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
        fail(
            public,
            f"constant_value {value} does not fit the {x.dtype.name} blob {x.lbn} "
            f"(range {info.min}..{info.max})",
            name,
        )
    return int(value)


def pad(
    x: Blob, paddings: Sequence[Sequence[int]], constant_value: float = 0, name: str | None = None
) -> Blob:
    """Pads every axis with ``paddings[i] = (before, after)`` copies of ``constant_value``."""
    public = "flow.pad"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if not isinstance(paddings, (list, tuple)) or len(paddings) != x.ndim:
        fail(
            public,
            f"paddings must have one (before, after) pair per axis of {x.shape}, got {paddings!r}",
            name,
        )
    pairs = []
    for i, p in enumerate(paddings):
        if not isinstance(p, (list, tuple)) or len(p) != 2:
            fail(
                public,
                f"paddings[{i}] must be a (before, after) pair of ints >= 0, got {p!r}",
                name,
            )
        pairs.append(int_list(public, p, 2, f"paddings[{i}]", name, minimum=0))
    value = pad_constant(public, x, constant_value, name)
    return apply_op(
        "pad",
        _lower_pad,
        [x],
        attrs={"paddings": tuple(pairs), "constant_value": value},
        name=name,
        prefix="Pad",
    )


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


def _slices(public: str, slice_tup_list, shape, name) -> tuple[builtins.slice, ...]:
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
    key = _slices(public, slice_tup_list, x.shape, name)
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


def _lower_pad2d(x, *, pads, mode, value):
    left, right, top, bottom = pads
    cfg = ((0, 0), (0, 0), (top, bottom), (left, right))
    if mode == PadMode.CONSTANT:
        return jnp.pad(x, cfg, constant_values=jnp.asarray(value, x.dtype))
    return jnp.pad(x, cfg, mode=mode.value)


def _pad2d(
    public: str, mode: PadMode, prefix: str, x: Blob, padding: Any, value: Any, name: str | None
) -> Blob:
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if x.ndim != 4:
        fail(public, f"x must be a 4-D NCHW blob, got shape {x.shape}", name)
    if isinstance(padding, int) and not isinstance(padding, bool):
        pads = (padding,) * 4
    elif (
        isinstance(padding, (list, tuple))
        and len(padding) == 4
        and all(isinstance(p, int) and not isinstance(p, bool) for p in padding)
    ):
        pads = tuple(padding)
    else:
        fail(
            public,
            f"padding must be an int or [left, right, top, bottom] ints, got {padding!r}",
            name,
        )
    if any(p < 0 for p in pads):
        fail(public, f"padding must be >= 0, got {padding!r}", name)
    h, w = x.shape[2], x.shape[3]
    fits = pads[0] < w and pads[1] < w and pads[2] < h and pads[3] < h
    if mode != PadMode.CONSTANT and not fits:
        fail(
            public,
            f"padding {padding!r} must be smaller than the padded dimension (H={h}, W={w})",
            name,
        )
    if mode == PadMode.CONSTANT:
        value = pad_constant(public, x, value, name)
    return apply_op(
        f"{mode}_pad2d",
        _lower_pad2d,
        [x],
        attrs={"pads": pads, "mode": mode, "value": value},
        name=name,
        prefix=prefix,
    )


def constant_pad2d(
    x: Blob, padding: Any, constant_value: float = 0, name: str | None = None
) -> Blob:
    """Pads H and W with ``constant_value``."""
    return _pad2d(
        "flow.constant_pad2d", PadMode.CONSTANT, "Constant_Pad2d", x, padding, constant_value, name
    )


def zero_pad2d(x: Blob, padding: Any, name: str | None = None) -> Blob:
    """Pads H and W with zeros."""
    return _pad2d("flow.zero_pad2d", PadMode.CONSTANT, "Zero_Pad2d", x, padding, 0, name)


def reflection_pad2d(x: Blob, padding: Any, name: str | None = None) -> Blob:
    """Pads H and W with the mirror image of the input (edge not repeated)."""
    return _pad2d(
        "flow.reflection_pad2d", PadMode.REFLECT, "Reflection_Pad2d", x, padding, None, name
    )


def replication_pad2d(x: Blob, padding: Any, name: str | None = None) -> Blob:
    """Pads H and W by repeating the edge values."""
    return _pad2d(
        "flow.replication_pad2d", PadMode.EDGE, "Replication_Pad2d", x, padding, None, name
    )
