"""The ``Tensor`` methods and Python operators that call this package's functions (as
OneFlow v0.4's ``register_tensor_op`` attached them): one table per module, set once."""

from __future__ import annotations

from ..imperative import Tensor
from . import (
    _activation,
    _arith,
    _cast,
    _compare,
    _matmul,
    _reduce,
    _select,
    _shape,
    _slice,
    _unary,
)

_TABLES = (
    _arith.OPERATORS,
    _arith.METHODS,
    _reduce.METHODS,
    _unary.OPERATORS,
    _unary.METHODS,
    _compare.OPERATORS,
    _compare.METHODS,
    _matmul.OPERATORS,
    _matmul.METHODS,
    _cast.METHODS,
    _shape.METHODS,
    _select.METHODS,
    _slice.OPERATORS,
    _activation.METHODS,
)


def register() -> None:
    for table in _TABLES:
        for name, fn in table.items():
            setattr(Tensor, name, fn)
