"""``flow.distribute``: SBP annotations and the old names of the logical views."""

from typing import Any

from ._legacy import (
    consistent_strategy,
    consistent_strategy_enabled,
    mirrored_strategy,
    mirrored_strategy_enabled,
)
from .errors import FlowJobError
from .graph import Distribute, auto, broadcast, split

__all__ = [
    "auto",
    "broadcast",
    "split",
    "consistent_strategy",
    "mirrored_strategy",
    "consistent_strategy_enabled",
    "mirrored_strategy_enabled",
    "assert_is_valid_distribute",
    "parallel_cast",
]


class InvalidDistributeError(FlowJobError, TypeError):
    """Not an SBP annotation (``flow.distribute.split(axis)``, ``broadcast()``, ``auto()``)."""


def assert_is_valid_distribute(distribute: Any) -> None:
    """Raises ``InvalidDistributeError`` unless ``distribute`` is an SBP annotation."""
    if not isinstance(distribute, Distribute):
        raise InvalidDistributeError(
            f"not a valid distribute policy: expected flow.distribute.split(axis), "
            f"broadcast() or auto(), got {distribute!r}"
        )


def parallel_cast(input, name=None, distribute=None, gradient_distribute=None):  # noqa: A002
    """Annotates ``input`` with an SBP distribution (``flow.distribute.split(k)`` ...)."""
    return input if distribute is None else input.with_distribute(distribute)
