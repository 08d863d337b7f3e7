"""Pads: ``flow.pad`` and the NCHW ``*_pad2d`` ops (``padding`` an int or
``[left, right, top, bottom]``, PyTorch's order, as OneFlow). The SAME-padding helpers and
``flow.pad_grad`` are in ``_padding``.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from ..graph import Blob, apply_op
from ._modes import PadMode
from ._util import check_name, fail, int_list, require_blob


def _lower_pad(x, *, paddings, constant_value):
    return jnp.pad(x, paddings, constant_values=jnp.asarray(constant_value, x.dtype))


def pad_constant(public: str, x: Blob, value, name: str | None):
    """OneFlow's attribute: a float for floating blobs, ``int(value)`` for integer blobs, which
    must fit the dtype (flowjob checks; OneFlow wrapped around silently)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        fail(public, f"constant_value must be an int or float, got {value!r}", name)
    if x.dtype.is_floating:
        return builtins.float(value)
    if not np.isfinite(value):
        fail(public, f"constant_value {value} cannot pad the {x.dtype.name} blob {x.lbn}", name)
    info = np.iinfo(x.dtype.np_dtype)
    if not info.min <= int(value) <= info.max:
        fail(
            public,
            f"constant_value {value} does not fit the {x.dtype.name} blob {x.lbn} "
            f"(range {info.min}..{info.max})",
            name,
        )
    return int(value)


def pad(
    x: Blob, paddings: Sequence[Sequence[int]], constant_value: float = 0, name: str | None = None
) -> Blob:
    """Pads every axis with ``paddings[i] = (before, after)`` copies of ``constant_value``."""
    public = "flow.pad"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if not isinstance(paddings, (list, tuple)) or len(paddings) != x.ndim:
        fail(
            public,
            f"paddings must have one (before, after) pair per axis of {x.shape}, got {paddings!r}",
            name,
        )
    pairs = []
    for i, p in enumerate(paddings):
        if not isinstance(p, (list, tuple)) or len(p) != 2:
            fail(
                public,
                f"paddings[{i}] must be a (before, after) pair of ints >= 0, got {p!r}",
                name,
            )
        pairs.append(int_list(public, p, 2, f"paddings[{i}]", name, minimum=0))
    value = pad_constant(public, x, constant_value, name)
    return apply_op(
        "pad",
        _lower_pad,
        [x],
        attrs={"paddings": tuple(pairs), "constant_value": value},
        name=name,
        prefix="Pad",
    )


def _lower_pad2d(x, *, pads, mode, value):
    left, right, top, bottom = pads
    cfg = ((0, 0), (0, 0), (top, bottom), (left, right))
    if mode == PadMode.CONSTANT:
        return jnp.pad(x, cfg, constant_values=jnp.asarray(value, x.dtype))
    return jnp.pad(x, cfg, mode=mode.value)


def _pad2d(
    public: str, mode: PadMode, prefix: str, x: Blob, padding: Any, value: Any, name: str | None
) -> Blob:
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if x.ndim != 4:
        fail(public, f"x must be a 4-D NCHW blob, got shape {x.shape}", name)
    if isinstance(padding, int) and not isinstance(padding, bool):
        pads = (padding,) * 4
    elif (
        isinstance(padding, (list, tuple))
        and len(padding) == 4
        and all(isinstance(p, int) and not isinstance(p, bool) for p in padding)
    ):
        pads = tuple(padding)
    else:
        fail(
            public,
            f"padding must be an int or [left, right, top, bottom] ints, got {padding!r}",
            name,
        )
    if any(p < 0 for p in pads):
        fail(public, f"padding must be >= 0, got {padding!r}", name)
    h, w = x.shape[2], x.shape[3]
    fits = pads[0] < w and pads[1] < w and pads[2] < h and pads[3] < h
    if mode != PadMode.CONSTANT and not fits:
        fail(
            public,
            f"padding {padding!r} must be smaller than the padded dimension (H={h}, W={w})",
            name,
        )
    if mode == PadMode.CONSTANT:
        value = pad_constant(public, x, value, name)
    return apply_op(
        f"{mode}_pad2d",
        _lower_pad2d,
        [x],
        attrs={"pads": pads, "mode": mode, "value": value},
        name=name,
        prefix=prefix,
    )


def constant_pad2d(
    x: Blob, padding: Any, constant_value: float = 0, name: str | None = None
) -> Blob:
    """Pads H and W with ``constant_value``."""
    return _pad2d(
        "flow.constant_pad2d", PadMode.CONSTANT, "Constant_Pad2d", x, padding, constant_value, name
    )


def zero_pad2d(x: Blob, padding: Any, name: str | None = None) -> Blob:
    """Pads H and W with zeros."""
    return _pad2d("flow.zero_pad2d", PadMode.CONSTANT, "Zero_Pad2d", x, padding, 0, name)


def reflection_pad2d(x: Blob, padding: Any, name: str | None = None) -> Blob:
    """Pads H and W with the mirror image of the input (edge not repeated)."""
    return _pad2d(
        "flow.reflection_pad2d", PadMode.REFLECT, "Reflection_Pad2d", x, padding, None, name
    )


def replication_pad2d(x: Blob, padding: Any, name: str | None = None) -> Blob:
    """Pads H and W by repeating the edge values."""
    return _pad2d(
        "flow.replication_pad2d", PadMode.EDGE, "Replication_Pad2d", x, padding, None, name
    )
