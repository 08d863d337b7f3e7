"""``oneflow.python.nn.modules.utils``: the argument helpers of OneFlow v0.4's layers, which
programs and tests import (``_pair``, ``_single``...)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import repeat
from typing import Any


def _ntuple(n: int) -> Callable[[Any], tuple]:
    def parse(x: Any) -> tuple:
        return tuple(x) if isinstance(x, Iterable) else tuple(repeat(x, n))

    return parse


_single = _ntuple(1)
_pair = _ntuple(2)
_triple = _ntuple(3)
_quadruple = _ntuple(4)


def _reverse_repeat_tuple(t: Sequence, n: int) -> tuple:
    """Each element of ``t``, from the last, repeated ``n`` times (padding from a size)."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size: Any, defaults: Sequence[int]) -> Any:
    """``out_size`` with its ``None`` entries taken from the end of ``defaults``."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size) :])]


def _check_axis(axis: Any, shape: Sequence[int]) -> list[int]:
    """``axis`` (None for all, an int or a sequence) as a list of non-negative axes of a
    tensor of ``shape``."""
    ndim = len(shape)
    axes = list(range(ndim)) if axis is None else [axis] if isinstance(axis, int) else axis
    if not isinstance(axes, (list, tuple)):
        raise TypeError(f"Invalid axis {axis!r}")
    out = []
    for a in axes:
        if not -ndim <= a <= ndim - 1:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
                f"but got {a})"
            )
        out.append(a + ndim if a < 0 else a)
    return out
