"""The modes the ops take as OneFlow strings (``data_format="NCHW"``, ``padding="SAME"``...),
as enums: a public function converts the user's string once (``Mode.lookup``) and everything
after it compares members, never string literals.

Members are ``str`` subclasses equal to (and hashing as) their OneFlow spelling, so op
attributes recorded in graphs, structure graphs and exports read exactly as before.
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


class DataFormat(Mode):
    NCW = "NCW"
    NWC = "NWC"
    NCHW = "NCHW"
    NHWC = "NHWC"
    NCDHW = "NCDHW"
    NDHWC = "NDHWC"

    @property
    def channels_first(self) -> bool:
        return self.value.startswith("NC")


class Padding(Mode):
    VALID = "VALID"
    SAME = "SAME"  # OneFlow's SAME is SAME_LOWER
    SAME_LOWER = "SAME_LOWER"
    SAME_UPPER = "SAME_UPPER"


class PoolMode(Mode):
    MAX = "max"
    AVG = "avg"


class PadMode(Mode):
    """``jnp.pad`` modes of the ``*_pad2d`` ops."""

    CONSTANT = "constant"
    REFLECT = "reflect"
    EDGE = "edge"


class SortDirection(Mode):
    ASCENDING = "ASCENDING"
    DESCENDING = "DESCENDING"


class Reduction(Mode):
    NONE = "none"
    MEAN = "mean"
    SUM = "sum"


class Interpolation(Mode):
    NEAREST = "nearest"
    BILINEAR = "bilinear"
