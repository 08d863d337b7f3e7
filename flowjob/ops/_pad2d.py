"""NCHW spatial padding: ``flow.constant_pad2d``, ``zero_pad2d``, ``reflection_pad2d`` and
``replication_pad2d``. ``padding`` is an int or ``[left, right, top, bottom]`` (PyTorch's
order, as OneFlow)."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from ..graph import Blob, apply_op
from ._shape import pad_constant
from ._util import check_name, fail, require_blob


def _lower_pad2d(x, *, pads, mode, value):
    left, right, top, bottom = pads
    cfg = ((0, 0), (0, 0), (top, bottom), (left, right))
    if mode == "constant":
        return jnp.pad(x, cfg, constant_values=jnp.asarray(value, x.dtype))
    return jnp.pad(x, cfg, mode=mode)


def _pad2d(public: str, mode: str, prefix: str, x: Blob, padding: Any, value: Any,
           name: str | None) -> Blob:
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if x.ndim != 4:
        fail(public, f"x must be a 4-D NCHW blob, got shape {x.shape}", name)
    if isinstance(padding, int) and not isinstance(padding, bool):
        pads = (padding,) * 4
    elif isinstance(padding, (list, tuple)) and len(padding) == 4 and all(
            isinstance(p, int) and not isinstance(p, bool) for p in padding):
        pads = tuple(padding)
    else:
        fail(public, f"padding must be an int or [left, right, top, bottom] ints, got "
                     f"{padding!r}", name)
    if any(p < 0 for p in pads):
        fail(public, f"padding must be >= 0, got {padding!r}", name)
    h, w = x.shape[2], x.shape[3]
    if mode != "constant" and not (pads[0] < w and pads[1] < w and pads[2] < h and pads[3] < h):
        fail(public, f"padding {padding!r} must be smaller than the padded dimension "
                     f"(H={h}, W={w})", name)
    if mode == "constant":
        value = pad_constant(public, x, value, name)
    return apply_op(f"{mode}_pad2d", _lower_pad2d, [x],
                    attrs={"pads": pads, "mode": mode, "value": value}, name=name, prefix=prefix)


def constant_pad2d(x: Blob, padding: Any, constant_value: float = 0,
                   name: str | None = None) -> Blob:
    """Pads H and W with ``constant_value``."""
    return _pad2d("flow.constant_pad2d", "constant", "Constant_Pad2d", x, padding,
                  constant_value, name)


def zero_pad2d(x: Blob, padding: Any, name: str | None = None) -> Blob:
    """Pads H and W with zeros."""
    return _pad2d("flow.zero_pad2d", "constant", "Zero_Pad2d", x, padding, 0, name)


def reflection_pad2d(x: Blob, padding: Any, name: str | None = None) -> Blob:
    """Pads H and W with the mirror image of the input (edge not repeated)."""
    return _pad2d("flow.reflection_pad2d", "reflect", "Reflection_Pad2d", x, padding, None,
                  name)


def replication_pad2d(x: Blob, padding: Any, name: str | None = None) -> Blob:
    """Pads H and W by repeating the edge values."""
    return _pad2d("flow.replication_pad2d", "edge", "Replication_Pad2d", x, padding, None, name)
