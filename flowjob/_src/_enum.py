"""``Mode``: the base of flowjob's enums for OneFlow's mode strings (a shared leaf).

Members are ``str`` subclasses equal to, hashing as and printing as their OneFlow spelling,
so a member can stand wherever the string stood (op attributes, conf dicts, file names).
"""

from __future__ import annotations

import enum
from typing import Any, TypeVar

M = TypeVar("M", bound="Mode")


class Mode(str, enum.Enum):
    """Base of the mode enums: the value is OneFlow's spelling."""

    def __str__(self) -> str:
        return self.value

    def __hash__(self) -> int:
        return hash(self.value)

    @classmethod
    def lookup(cls: type[M], value: Any, *, upper: bool = False) -> M | None:
        """The member spelled ``value`` (upper-cased first when OneFlow accepts any case), or
        None when there is none; callers fail with their own op-specific message."""
        if isinstance(value, cls):
            return value
        if not isinstance(value, str):
            return None
        try:
            return cls(value.upper() if upper else value)
        except ValueError:
            return None
