"""Elementwise comparisons: ``eq``/``equal``, ``gt``, ``lt`` and the ``>``/``<`` operators.

Results are int8 tensors of 1 and 0, as OneFlow v0.4's ``broadcast_equal``/``greater``/
``less`` ops gave them (no bool dtype yet). Shapes broadcast; a Python number operand becomes
a scalar op. OneFlow v0.4's Tensor defined only ``__gt__`` and ``__lt__``: ``==`` stays
Python's identity test (tensors remain hashable, as Module code relies on), and ``>=``/``<=``
are not defined."""

from __future__ import annotations

from typing import Any

from .. import ops
from ..graph import Blob
from ..imperative import apply
from ._checks import is_operand, number, require_tensor

_COMPARE = {"eq": ops.math.equal, "gt": ops.math.greater, "lt": ops.math.less}


def _pair_body(a: Blob, b: Blob, *, kind: str) -> Blob:
    return _COMPARE[kind](a, b)


def _scalar_body(a: Blob, *, kind: str, scalar: Any) -> Blob:
    return _COMPARE[kind](a, scalar)


def _compare(kind: str, arg: str, x: Any, y: Any) -> Any:
    require_tensor(kind, arg, x)
    if is_operand(y):
        return apply(kind, _pair_body, x, y, kind=kind)
    return apply(kind, _scalar_body, x, kind=kind, scalar=number(kind, y))


def eq(input: Any, other: Any) -> Any:  # noqa: A002 - OneFlow's name
    """1 where ``input == other`` and 0 elsewhere (int8); ``other`` is a tensor that
    broadcasts with ``input``, or a number. Also ``flow.equal``.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> y = flow.eq(flow.Tensor([2.0, 3.0, 4.0]), flow.Tensor([2.0, 1.0, 4.0]))
        >>> assert y.numpy().tolist() == [1, 0, 1] and y.dtype == flow.int8
    """
    return _compare("eq", "input", input, other)


def gt(x: Any, y: Any) -> Any:
    """1 where ``x > y`` and 0 elsewhere (int8); ``y`` is a tensor or a number. Also
    ``x > y``.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> x = flow.Tensor([1.0, 3.0])
        >>> assert flow.gt(x, 2).numpy().tolist() == [0, 1]
        >>> assert (x > flow.Tensor([0.0, 5.0])).numpy().tolist() == [1, 0]
    """
    return _compare("gt", "x", x, y)


def lt(x: Any, y: Any) -> Any:
    """1 where ``x < y`` and 0 elsewhere (int8); ``y`` is a tensor or a number. Also
    ``x < y``.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> assert (flow.Tensor([1.0, 3.0]) < 2).numpy().tolist() == [1, 0]
    """
    return _compare("lt", "x", x, y)


equal = eq

OPERATORS = {"__gt__": gt, "__lt__": lt}
METHODS = {"eq": eq, "gt": gt, "lt": lt}
