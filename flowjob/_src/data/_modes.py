"""The modes OneFlow's data ops take as strings, as enums: each public op parses its string
once (``parse``: case as OneFlow accepts it, a clear error otherwise) and passes the enum on."""

from __future__ import annotations

import enum

from ..errors import FlowJobError


class ModeError(FlowJobError, ValueError):
    """A mode argument (color space, layout, interpolation...) is not one of its values."""


class Mode(enum.Enum):
    @classmethod
    def parse(cls, value: object, what: str) -> Mode:
        """``value`` (an enum member or one of the accepted strings) as a member."""
        if isinstance(value, cls):
            return value
        key = value.lower() if isinstance(value, str) else value
        for member in cls:
            if key in member.spellings():
                return member
        shown = " or ".join(f'"{m.value}"' for m in cls)
        raise ModeError(f"{what} must be {shown}, got {value!r}")

    def spellings(self) -> tuple[str, ...]:
        return (self.value.lower(),)


class ColorSpace(Mode):
    RGB = "RGB"
    BGR = "BGR"
    GRAY = "GRAY"

    @property
    def channels(self) -> int:
        return 1 if self is ColorSpace.GRAY else 3


class Layout(Mode):
    NCHW = "NCHW"
    NHWC = "NHWC"


class Interpolation(Mode):
    AUTO = "auto"  # OneFlow: enlarge bilinearly, shrink by area averaging
    BILINEAR = "bilinear"
    NEAREST = "nearest_neighbor"
    BICUBIC = "bicubic"
    AREA = "area"

    def spellings(self) -> tuple[str, ...]:
        return ("nearest_neighbor", "nn") if self is Interpolation.NEAREST else (self.value,)


class ResizeSide(Mode):
    SHORTER = "shorter"
    LONGER = "longer"


class ShuffleMode(Mode):
    INSTANCE = "instance"
    BATCH = "batch"
