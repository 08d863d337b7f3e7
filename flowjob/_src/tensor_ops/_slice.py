"""Slices of tensors: ``flow.slice``, ``flow.slice_update``, the in-place
``flow.tmp.logical_slice_assign`` and ``Tensor.__getitem__``/``__setitem__`` over them, as
OneFlow v0.4 had them.

As in OneFlow v0.4 (whose ``x[key]`` is one ``slice`` op), an int index keeps its axis with
size 1: ``x[0]`` of a ``(2, 3)`` tensor has shape ``(1, 3)`` (``.squeeze(0)`` drops it).
Indices are ints (negative ones count from the end), slices (any step but 0; bounds past the
ends are clipped) and one ``...``. Reads are differentiable. Writes (``x[key] = value``,
``logical_slice_assign``) replace the tensor's values in place and are not recorded by
autograd, as OneFlow v0.4's assign op had no gradient; ``flow.slice_update`` is the
differentiable, out-of-place form.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import autograd, ops
from ..graph import Blob
from ..imperative import Tensor, apply

_Tups = tuple[tuple[Any, Any, Any], ...]


def _slice_body(x: Blob, *, tups: _Tups) -> Blob:
    return ops.array_ops.slice_v2(x, list(tups))


def _tups(who: str, slice_tup_list: Any) -> _Tups:
    if not isinstance(slice_tup_list, (list, tuple)):
        raise TypeError(
            f"{who}: slice_tup_list must be a list of (start, stop, step) tuples, "
            f"got {slice_tup_list!r}"
        )
    out = []
    for i, tup in enumerate(slice_tup_list):
        if not isinstance(tup, (list, tuple)) or len(tup) != 3:
            raise ValueError(f"{who}: slice_tup_list[{i}] must be (start, stop, step), got {tup!r}")
        out.append(tuple(None if v is None else _int(who, v) for v in tup))
    return tuple(out)


def _int(who: str, v: Any) -> int:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{who}: slice bounds must be ints or None, got {v!r}")
    return int(v)


def slice(x: Tensor, slice_tup_list: Sequence[Sequence[int | None]]) -> Tensor:  # noqa: A001
    """``x`` sliced by one ``(start, stop, step)`` per leading axis (``None`` entries take
    the defaults; axes left out are kept whole).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> x = flow.Tensor(np.random.randn(3, 6, 9).astype(np.float32))
        >>> flow.slice(x, [[None, None, None], [0, 5, 2], [0, 6, 3]]).shape
        flow.Size([3, 3, 2])
    """
    return apply("slice", _slice_body, x, tups=_tups("flow.slice", slice_tup_list))


def _slice_update_body(x: Blob, update: Blob, *, tups: _Tups) -> Blob:
    return ops.array_ops.slice_update(x, update, list(tups))


def slice_update(
    x: Tensor, update: Tensor, slice_tup_list: Sequence[Sequence[int | None]]
) -> Tensor:
    """A new tensor: ``x`` with the slice ``slice_tup_list`` replaced by ``update`` (of the
    slice's shape and ``x``'s dtype). ``x`` gets the gradient outside the slice, ``update``
    the part inside.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> x = flow.Tensor(np.ones(5, np.float32))
        >>> u = flow.Tensor(np.array([2.0, 3.0, 4.0], np.float32))
        >>> flow.slice_update(x, u, slice_tup_list=[[1, 4, 1]]).tolist()
        [1.0, 2.0, 3.0, 4.0, 1.0]
    """
    tups = _tups("flow.slice_update", slice_tup_list)
    return apply("slice_update", _slice_update_body, x, update, tups=tups)


def logical_slice_assign(
    x: Tensor, update: Tensor, slice_tup_list: Sequence[Sequence[int | None]]
) -> None:
    """Writes ``update`` into the slice ``slice_tup_list`` of ``x`` in place (every tensor
    sharing ``x``'s storage sees it); not recorded by autograd. OneFlow v0.4 served it as
    ``flow.tmp.logical_slice_assign``.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> x = flow.Tensor(np.ones(5, np.float32))
        >>> u = flow.Tensor(np.array([2.0, 3.0, 4.0], np.float32))
        >>> flow.tmp.logical_slice_assign(x, u, slice_tup_list=[[1, 4, 1]])
        >>> x.tolist()
        [1.0, 2.0, 3.0, 4.0, 1.0]
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"flow.tmp.logical_slice_assign: x must be a tensor, got {x!r}")
    tups = _tups("flow.tmp.logical_slice_assign", slice_tup_list)
    with autograd.no_grad():
        out = apply("logical_slice_assign", _slice_update_body, x, update, tups=tups)
    x._cell.array = out.array


# --- Tensor indexing ------------------------------------------------------------------------


def _axis_tup(k: Any, size: int, axis: int) -> tuple[int | None, int | None, int]:
    """One index of ``x[key]`` as the ``(start, stop, step)`` of the slice op."""
    if isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
        if not -size <= k < size:
            raise IndexError(f"index {int(k)} is out of range for axis {axis} of size {size}")
        k = int(k) % size
        return (k, k + 1, 1)
    if isinstance(k, builtins.slice):
        parts = [
            None if p is None else _int("Tensor.__getitem__", p) for p in (k.start, k.stop, k.step)
        ]
        if parts[2] == 0:
            raise ValueError(f"slice step cannot be 0 (axis {axis})")
        start, stop, step = builtins.slice(*parts).indices(size)
        if not len(range(start, stop, step)):
            return (0, 0, 1)
        # a backward slice to the front: indices() says -1, which the slice op reads as "last"
        return (start, None if stop < 0 else stop, step)
    if isinstance(k, (Tensor, Blob, list, np.ndarray)):
        raise TypeError(
            f"indexing with a {type(k).__name__} is not supported (OneFlow v0.4 took ints and "
            "slices); use flow.gather, flow.masked_fill or flow.where"
        )
    raise TypeError(f"unsupported index {k!r} of type {type(k).__name__}: use ints, slices and ...")


def slice_tups(shape: Sequence[int], key: Any) -> _Tups:
    """``key`` of ``x[key]`` (ints, slices, one ``...``) as one ``(start, stop, step)`` per
    axis of a tensor of ``shape``."""
    items = list(key) if isinstance(key, tuple) else [key]
    if sum(k is Ellipsis for k in items) > 1:
        raise IndexError(f"an index can only have a single ellipsis ('...'), got {key!r}")
    if Ellipsis in items:
        at = items.index(Ellipsis)
        fill = len(shape) - (len(items) - 1)
        items[at : at + 1] = [builtins.slice(None)] * max(fill, 0)
    if any(k is None for k in items):
        raise IndexError("None (a new axis) is not supported as an index; use unsqueeze")
    if len(items) > len(shape):
        raise IndexError(f"too many indices for a tensor of shape {tuple(shape)}: {key!r}")
    items += [builtins.slice(None)] * (len(shape) - len(items))
    return tuple(_axis_tup(k, n, d) for d, (k, n) in enumerate(zip(items, shape)))


def _tups_shape(tups: _Tups, shape: Sequence[int]) -> tuple[int, ...]:
    return tuple(len(range(*builtins.slice(*t).indices(n))) for t, n in zip(tups, shape))


def getitem(self: Tensor, key: Any) -> Tensor:
    """``x[key]``: a new tensor holding the slice (an int keeps its axis, as OneFlow v0.4).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> x = flow.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
        >>> x[1].tolist()
        [[4.0, 5.0, 6.0, 7.0]]
        >>> x[-1, ::-2].tolist()
        [[11.0, 9.0]]
    """
    return apply("slice", _slice_body, self, tups=slice_tups(self.shape, key))


def _assign_body(x: Blob, value: Blob, *, tups: _Tups, shape: tuple[int, ...], lead: int) -> Blob:
    value = ops.array_ops.cast(value, x.dtype)
    if lead:  # extra leading size-1 axes of the value
        value = ops.array_ops.reshape(value, value.shape[lead:])
    if value.shape != shape:
        value = ops.array_ops.expand(value, shape)
    return ops.array_ops.slice_update(x, value, list(tups))


def _fill_body(x: Blob, *, tups: _Tups, shape: tuple[int, ...], value: Any) -> Blob:
    update = ops.array_ops.constant(value, dtype=x.dtype, shape=shape)
    return ops.array_ops.slice_update(x, update, list(tups))


def setitem(self: Tensor, key: Any, value: Any) -> None:
    """``x[key] = value``: writes ``value`` (a number, or a tensor or array broadcastable to
    the slice; cast to ``x``'s dtype) into ``x`` in place. Not recorded by autograd.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> x = flow.Tensor(np.zeros((2, 3), np.float32))
        >>> x[:, 1] = 5
        >>> x[1] = flow.Tensor(np.array([1.0, 2.0, 3.0], np.float32))
        >>> x.tolist()
        [[0.0, 5.0, 0.0], [1.0, 2.0, 3.0]]
    """
    tups = slice_tups(self.shape, key)
    shape = _tups_shape(tups, self.shape)
    with autograd.no_grad():
        if isinstance(value, (bool, int, float, np.number)) and not isinstance(value, np.ndarray):
            if 0 in shape:
                return
            value = value.item() if isinstance(value, np.number) else value
            out = apply("setitem", _fill_body, self, tups=tups, shape=shape, value=value)
        else:
            if not isinstance(value, Tensor):
                value = Tensor(np.asarray(value), dtype=self.dtype)
            vshape = tuple(value.shape)
            lead = 0
            while len(vshape) - lead > len(shape) and vshape[lead] == 1:
                lead += 1
            try:
                np.broadcast_to(np.empty(vshape[lead:], np.bool_), shape)
            except ValueError:
                raise ValueError(
                    f"Tensor.__setitem__: a value of shape {vshape} does not fit the slice "
                    f"{key!r} of shape {shape}"
                ) from None
            out = apply("setitem", _assign_body, self, value, tups=tups, shape=shape, lead=lead)
    self._cell.array = out.array


OPERATORS = {"__getitem__": getitem, "__setitem__": setitem}
