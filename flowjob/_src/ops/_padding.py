"""OneFlow's padding helpers: ``flow.same_padding`` (the zero padding a SAME convolution or
pooling would add) and ``flow.pad_grad`` (the gradient of ``flow.pad``: the padding cut off).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp

from ..graph import Blob, apply_op
from . import _conv
from ._modes import DataFormat
from ._util import check_name, fail, failer, int_list, require_blob


def _lower_pad(x, *, pads):
    return jnp.pad(x, pads)


def same_padding(
    x: Blob,
    padding: str,
    data_format: str,
    kernel_size: Sequence[int],
    strides: Sequence[int],
    dilation_rate: Sequence[int],
    name: str | None = None,
) -> Blob:
    """``x`` zero-padded on its spatial axes as a ``"SAME_UPPER"``/``"SAME_LOWER"`` window
    pass needs (``data_format`` starting with ``"NC"``: channels first)."""
    public = "flow.same_padding"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if not isinstance(padding, str) or padding.upper() not in ("SAME_UPPER", "SAME_LOWER"):
        fail(public, f"padding must be 'SAME_UPPER' or 'SAME_LOWER', got {padding!r}", name)
    if not isinstance(data_format, str) or not data_format.startswith("N"):
        fail(
            public, f"data_format must start with 'N' (e.g. NCHW, NHWC), got {data_format!r}", name
        )
    spatial = x.ndim - 2
    if spatial < 1:
        fail(public, f"x needs batch, channel and spatial axes, got shape {x.shape}", name)
    for what, value in (
        ("kernel_size", kernel_size),
        ("strides", strides),
        ("dilation_rate", dilation_rate),
    ):
        if not isinstance(value, (list, tuple)) or len(value) != spatial:
            fail(public, f"{what} must be a list of {spatial} ints, got {value!r}", name)
    kernel = int_list(public, kernel_size, spatial, "kernel_size", name)
    stride = int_list(public, strides, spatial, "strides", name)
    dilation = int_list(public, dilation_rate, spatial, "dilation_rate", name)
    first = 2 if data_format.startswith("NC") else 1
    # a padding string needs the layout only for its channel position
    layout = DataFormat.NCHW if first == 2 else DataFormat.NHWC
    spatial_pads = _conv.resolve_padding(
        padding.upper(),
        layout,
        x.shape[first : first + spatial],
        kernel,
        stride,
        dilation,
        failer(public, name),
    )
    pads = [(0, 0)] * x.ndim
    pads[first : first + spatial] = spatial_pads
    return apply_op(
        "same_padding",
        _lower_pad,
        [x],
        attrs={"pads": tuple(pads)},
        name=name,
        prefix="SamePadding",
    )


def _lower_unpad(dy, *, pads):
    return dy[tuple(slice(a, n - b) for (a, b), n in zip(pads, dy.shape))]


def pad_grad(
    x: Blob, paddings: Sequence[Sequence[int]], constant_value: Any = 0, name: str | None = None
) -> Blob:
    """The gradient of ``flow.pad(x, paddings)`` for the gradient ``x`` of its result: the
    padded borders cut off (``constant_value`` is OneFlow's unused argument)."""
    public = "flow.pad_grad"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if (
        not isinstance(paddings, (list, tuple))
        or len(paddings) != x.ndim
        or not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in paddings)
    ):
        fail(public, f"paddings must be {x.ndim} (before, after) pairs, got {paddings!r}", name)
    pads = tuple((int(a), int(b)) for a, b in paddings)
    for axis, ((a, b), n) in enumerate(zip(pads, x.shape)):
        if a < 0 or b < 0 or a + b >= n:
            fail(
                public,
                f"padding {pads[axis]} of axis {axis} must be >= 0 and leave part of its size {n}",
                name,
            )
    return apply_op(
        "pad_grad", _lower_unpad, [x], attrs={"pads": pads}, name=name, prefix="PadGrad"
    )
