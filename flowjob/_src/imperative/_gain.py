"""Gains and fans of ``nn.init`` (the formulas of OneFlow v0.4 and PyTorch)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..ops.initializers import FanMode, compute_fans

_LINEAR = (
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "sigmoid",
)


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain of an activation: 1 for the linear layers and ``"sigmoid"``, 5/3
    for ``"tanh"``, sqrt(2) for ``"relu"``, ``sqrt(2 / (1 + slope**2))`` for ``"leaky_relu"``
    (``param`` is the slope, 0.01 when ``None``) and 3/4 for ``"selu"``."""
    if nonlinearity in _LINEAR:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"calculate_gain: negative_slope {param!r} is not a number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(
        f"calculate_gain: unsupported nonlinearity {nonlinearity!r}; expected one of "
        f"{[*_LINEAR, 'tanh', 'relu', 'leaky_relu', 'selu']}"
    )


def fans(who: str, shape: Sequence[int], data_format: str) -> tuple[float, float]:
    """``(fan_in, fan_out)`` of a weight of rank >= 2 (``data_format`` "NCHW"-like or
    "NHWC"-like: where the channels of a convolution weight are)."""
    if len(shape) < 2:
        raise ValueError(
            f"{who}: fan in and fan out need a tensor of rank >= 2, got shape {tuple(shape)}"
        )
    if data_format not in ("NCHW", "NHWC", "NCDHW", "NDHWC", "NCW", "NWC"):
        raise ValueError(f"{who}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    return compute_fans(shape, data_format)


def fan(who: str, shape: Sequence[int], mode: str, data_format: str) -> float:
    """The fan ``mode`` picks: ``"fan_in"``, ``"fan_out"`` or ``"fan_avg"`` (their mean)."""
    fan_mode = FanMode.lookup(mode)
    if fan_mode is None:
        raise ValueError(f"{who}: mode must be one of {[m.value for m in FanMode]}, got {mode!r}")
    fan_in, fan_out = fans(who, shape, data_format)
    return {
        FanMode.FAN_IN: fan_in,
        FanMode.FAN_OUT: fan_out,
        FanMode.FAN_AVG: (fan_in + fan_out) / 2,
    }[fan_mode]
