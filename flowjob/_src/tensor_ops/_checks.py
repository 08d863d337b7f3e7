"""Argument checks the tensor functions share: clear errors naming the function and argument
instead of an attribute error deep inside ``apply``."""

from __future__ import annotations

from typing import Any

from ..graph import Blob
from ..imperative import Tensor


def is_operand(value: Any) -> bool:
    """Whether ``value`` is an op operand: an eager tensor, or a blob inside a job."""
    return isinstance(value, (Tensor, Blob))


def require_tensor(op: str, arg: str, value: Any) -> Any:
    """``value`` itself when it is a tensor (or a blob); a ``TypeError`` otherwise."""
    if not is_operand(value):
        raise TypeError(f"flow.{op}: {arg} must be a Tensor, got {type(value).__name__}: {value!r}")
    return value


def number(op: str, value: Any) -> int | float:
    """``value`` as a Python number (a NumPy scalar is converted); a ``TypeError`` for
    anything else, bools included."""
    if isinstance(value, bool):
        raise TypeError(f"flow.{op}: expected a tensor or a number, got {value!r}")
    if isinstance(value, (int, float)):
        return value
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:  # a NumPy scalar
        return number(op, value.item())
    raise TypeError(f"flow.{op}: expected a tensor or a number, got {type(value).__name__}")
