"""Python standard-library and Pillow functions as they were before their removal.

Each rebuilds the old behaviour from what the current library still has; the table in
``_removed_names.py`` says which removed name each one restores.
"""

from __future__ import annotations

import collections
import inspect
from typing import Any

ArgSpec = collections.namedtuple("ArgSpec", "args varargs keywords defaults")


def getargspec(func: Any) -> ArgSpec:
    """``inspect.getargspec`` (removed in Python 3.11): the four-field spec, refused for
    functions with keyword-only parameters or annotations as it was."""
    spec = inspect.getfullargspec(func)
    if spec.kwonlyargs or spec.annotations:
        raise ValueError(
            f"inspect.getargspec({getattr(func, '__name__', func)!r}): the function has "
            "keyword-only parameters or annotations, which the old four-field spec cannot "
            "hold; use inspect.signature"
        )
    return ArgSpec(spec.args, spec.varargs, spec.varkw, spec.defaults)


def fractions_gcd(a: Any, b: Any) -> Any:
    """``fractions.gcd`` (removed in 3.9): Euclid's algorithm, the result takes b's sign."""
    while b:
        a, b = b, a % b
    return a


# -- Pillow 10 removed the size queries; each is the bottom-right corner of the text's box
# drawn at the origin (old getsize = offset + size), which Pillow still computes.


def font_getsize(self: Any, text: str, *args: Any, stroke_width: int = 0, **kwargs: Any):
    if not hasattr(self, "getbbox"):
        raise AttributeError("getsize")
    if stroke_width:
        kwargs["stroke_width"] = stroke_width
    _, _, right, bottom = self.getbbox(text, *args, **kwargs)
    return right + stroke_width, bottom + stroke_width


def font_getoffset(self: Any, text: str) -> tuple[int, int]:
    left, top, _, _ = self.getbbox(text)
    return left, top


def font_getsize_multiline(
    self: Any,
    text: str,
    direction: Any = None,
    spacing: int = 4,
    features: Any = None,
    language: Any = None,
    stroke_width: int = 0,
) -> tuple[int, int]:
    from PIL import Image, ImageDraw

    draw = ImageDraw.Draw(Image.new("1", (1, 1)))
    return draw_multiline_textsize(
        draw, text, self, spacing, direction, features, language, stroke_width
    )


def draw_textsize(
    self: Any,
    text: str,
    font: Any = None,
    spacing: int = 4,
    direction: Any = None,
    features: Any = None,
    language: Any = None,
    stroke_width: int = 0,
):
    if "\n" in text:
        return draw_multiline_textsize(
            self, text, font, spacing, direction, features, language, stroke_width
        )
    font = self.getfont() if font is None else font
    return font_getsize(font, text, direction, features, language, stroke_width=stroke_width)


def draw_multiline_textsize(
    self: Any,
    text: str,
    font: Any = None,
    spacing: int = 4,
    direction: Any = None,
    features: Any = None,
    language: Any = None,
    stroke_width: int = 0,
) -> tuple[int, int]:
    _, _, right, bottom = self.multiline_textbbox(
        (0, 0),
        text,
        font,
        spacing=spacing,
        direction=direction,
        features=features,
        language=language,
        stroke_width=stroke_width,
    )
    return right, bottom
