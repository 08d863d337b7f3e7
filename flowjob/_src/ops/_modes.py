"""The modes the ops take as OneFlow strings (``data_format="NCHW"``, ``padding="SAME"``...),
as enums: a public function converts the user's string once (``Mode.lookup``) and everything
after it compares members, never string literals. Being ``str``-valued (``flowjob._src._enum``),
op attributes recorded in graphs, structure graphs and exports read exactly as before.
"""

from __future__ import annotations

from .._enum import Mode


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


class FanMode(Mode):
    """Which fan variance scaling divides by; ``conf`` is OneFlow's ``variance_norm``."""

    FAN_IN = "fan_in"
    FAN_OUT = "fan_out"
    FAN_AVG = "fan_avg"

    @property
    def conf(self) -> str:
        return {"fan_in": "kFanIn", "fan_out": "kFanOut", "fan_avg": "kAverage"}[self.value]


class Distribution(Mode):
    """What variance scaling draws from; ``conf`` is OneFlow's ``distribution``."""

    TRUNCATED_NORMAL = "truncated_normal"
    RANDOM_NORMAL = "random_normal"
    RANDOM_UNIFORM = "random_uniform"

    @property
    def conf(self) -> str:
        return {
            "truncated_normal": "kTruncatedNormal",
            "random_normal": "kRandomNormal",
            "random_uniform": "kRandomUniform",
        }[self.value]


class ChannelLayout(Mode):
    """Where a weight's channels are, for its fans (``""``: unknown, counted as last)."""

    CHANNELS_FIRST = "channels_first"
    CHANNELS_LAST = "channels_last"
    UNKNOWN = ""

    @classmethod
    def of(cls, data_format: str) -> ChannelLayout | None:
        """``"NC..."`` -> first, ``"N...C"`` -> last, ``""`` -> unknown, else None."""
        if data_format.startswith("NC"):
            return cls.CHANNELS_FIRST
        if data_format.startswith("N") and data_format.endswith("C"):
            return cls.CHANNELS_LAST
        return cls.UNKNOWN if data_format == "" else None
