"""OneFlow v0.4's NCHW border pads: ``flow.constant_pad2d``, ``zero_pad2d``,
``reflection_pad2d`` and ``replication_pad2d``.

``padding`` is an int (all four sides) or ``[left, right, top, bottom]``; each side must be
smaller than the input's height/width, as OneFlow checks.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from ..graph import Blob, apply_op
from ._util import check_name, fail, require_blob


def _sides(public: str, x: Blob, padding: Any, name: str | None) -> tuple[int, int, int, int]:
    if x.ndim != 4:
        fail(public, f"needs an NCHW input (rank 4), got shape {x.shape}", name)
    h, w = x.shape[2], x.shape[3]
    if isinstance(padding, int) and not isinstance(padding, bool):
        sides = (padding,) * 4
    elif isinstance(padding, (list, tuple)) and len(padding) == 4 and all(
            isinstance(p, int) and not isinstance(p, bool) for p in padding):
        sides = tuple(padding)
    else:
        fail(public, f"padding must be an int or [left, right, top, bottom] ints, got "
                     f"{padding!r}", name)
    left, right, top, bottom = sides
    if min(sides) < 0 or max(left, right) >= w or max(top, bottom) >= h:
        fail(public, f"padding {list(sides)} must be >= 0 and smaller than the input's "
                     f"width {w} (left, right) and height {h} (top, bottom)", name)
    return sides


def _lower_pad2d(x, *, sides, mode, value):
    left, right, top, bottom = sides
    widths = ((0, 0), (0, 0), (top, bottom), (left, right))
    if mode == "constant":
        return jnp.pad(x, widths, constant_values=jnp.asarray(value, x.dtype))
    return jnp.pad(x, widths, mode=mode)


def _pad2d(public: str, op_type: str, x: Blob, padding: Any, mode: str, value: float,
           name: str | None, prefix: str) -> Blob:
    check_name(public, name)
    require_blob(public, x, "x", name)
    sides = _sides(public, x, padding, name)
    if mode == "constant" and not x.dtype.is_floating:
        value = int(value)  # OneFlow keeps an integral constant for integer blobs
    return apply_op(op_type, _lower_pad2d, [x],
                    attrs={"sides": sides, "mode": mode, "value": value},
                    name=name, prefix=prefix)


def constant_pad2d(x: Blob, padding: Any, constant_value: float = 0,
                   name: str | None = None) -> Blob:
    """Pads height and width with ``constant_value``."""
    return _pad2d("flow.constant_pad2d", "constant_pad2d", x, padding, "constant",
                  constant_value, name, "Constant_Pad2d")


def zero_pad2d(x: Blob, padding: Any, name: str | None = None) -> Blob:
    """Pads height and width with zeros."""
    return _pad2d("flow.zero_pad2d", "zero_pad2d", x, padding, "constant", 0, name,
                  "Zero_Pad2d")


def reflection_pad2d(x: Blob, padding: Any, name: str | None = None) -> Blob:
    """Pads with the reflection of the border (the edge itself not repeated)."""
    return _pad2d("flow.reflection_pad2d", "reflection_pad2d", x, padding, "reflect", 0,
                  name, "Reflection_Pad2d")


def replication_pad2d(x: Blob, padding: Any, name: str | None = None) -> Blob:
    """Pads by repeating the border values."""
    return _pad2d("flow.replication_pad2d", "replication_pad2d", x, padding, "edge", 0,
                  name, "Replication_Pad2d")
