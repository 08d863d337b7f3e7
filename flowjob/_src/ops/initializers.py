"""Variable initializers (``flow.constant_initializer``, ``flow.xavier_uniform_initializer``...).

Each function returns an :class:`Initializer`: ``init(key, shape, np_dtype) -> jax.Array``
draws from the given PRNG key only (same key, same values) and ``.conf`` describes it the way
OneFlow's ``InitializerConf`` proto does, e.g. ``{"truncated_normal_conf": {"std": 0.1}}``.
Fans follow OneFlow: ``(units, in)`` dense weights have ``fan_in = in``, ``fan_out = units``;
conv weights ``(out, in, kh, kw)`` (NCHW) or ``(out, kh, kw, in)`` (NHWC) have
``fan_in = in*kh*kw`` and ``fan_out = out*kh*kw``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import jax.numpy as jnp
import numpy as np

from .. import _dtypes
from ._distributions import (
    _TRUNC_STD,
    Initializer,
    _normal,
    _uniform,
    constant_initializer,
    ones_initializer,
    random_normal_initializer,
    random_uniform_initializer,
    truncated_normal_initializer,
    truncated_sampler,
    zeros_initializer,
)
from ._modes import ChannelLayout, DataFormat, Distribution, FanMode

__all__ = [
    "Initializer",
    "constant_initializer",
    "zeros_initializer",
    "ones_initializer",
    "random_uniform_initializer",
    "random_normal_initializer",
    "truncated_normal_initializer",
    "glorot_uniform_initializer",
    "xavier_uniform_initializer",
    "glorot_normal_initializer",
    "xavier_normal_initializer",
    "variance_scaling_initializer",
    "kaiming_initializer",
    "empty_initializer",
    "compute_fans",
    "FanMode",
    "from_conf",
]


def data_format_layout(data_format: str, who: str) -> ChannelLayout:
    if not isinstance(data_format, str):
        raise TypeError(f"{who}: data_format must be a string, got {data_format!r}")
    layout = ChannelLayout.of(data_format)
    if layout is not None:
        return layout
    raise ValueError(f'{who}: data_format must be "NC..." , "N...C" or "", got {data_format!r}')


def compute_fans(shape: Sequence[int], data_format: str = "") -> tuple[float, float]:
    """``(fan_in, fan_out)`` of a weight, as OneFlow computes them.

    ``data_format`` is ``"NCHW"``-like, ``"NHWC"``-like, ``"channels_first"``,
    ``"channels_last"`` or ``""``. 2-D ``(units, in)``: ``(in, units)``. Higher rank:
    ``fan_in = prod(shape[1:])``; ``fan_out = shape[0] * spatial`` where the spatial dims are
    ``shape[2:]`` (channels first) or ``shape[1:-1]`` (channels last, and ``""`` as OneFlow
    v0.4's Python initializer did). 1-D ``(n,)``: ``(1, n)``.
    """
    shape = tuple(int(d) for d in shape)
    if not shape:
        raise ValueError("compute_fans: a scalar variable has no fan; give a shape of rank >= 1")
    fmt = ChannelLayout.lookup(data_format)
    if fmt is None or fmt is ChannelLayout.UNKNOWN:
        fmt = data_format_layout(data_format, "compute_fans")
    fan_in = float(np.prod(shape[1:], dtype=np.float64))
    spatial = shape[2:] if fmt is ChannelLayout.CHANNELS_FIRST else shape[1:-1]
    fan_out = float(shape[0] * np.prod(spatial, dtype=np.float64))
    return fan_in, fan_out


def _fan(shape, mode: FanMode, data_format: ChannelLayout) -> float:
    fan_in, fan_out = compute_fans(shape, data_format)
    fan = {
        FanMode.FAN_IN: fan_in,
        FanMode.FAN_OUT: fan_out,
        FanMode.FAN_AVG: (fan_in + fan_out) / 2.0,
    }[mode]
    if fan <= 0:
        raise ValueError(f"variance scaling: {mode} of shape {tuple(shape)} is 0")
    return fan


def variance_scaling_initializer(
    scale: float = 1.0,
    mode: str = "fan_in",
    distribution: str = "truncated_normal",
    data_format: str = "",
) -> Initializer:
    """Zero-mean draw with variance ``scale / fan`` (fan chosen by ``mode``).

    ``truncated_normal`` uses std ``sqrt(scale/fan) / 0.8796...`` truncated at 2 of those
    stds; ``random_normal`` std ``sqrt(scale/fan)``; ``random_uniform`` bound
    ``sqrt(3 * scale / fan)``.
    """
    who = "variance_scaling_initializer"
    mode, distribution = str(mode).lower(), str(distribution).lower()
    fan_mode, dist = FanMode.lookup(mode), Distribution.lookup(distribution)
    if fan_mode is None:
        raise ValueError(f"{who}: mode must be one of {[m.value for m in FanMode]}, got {mode!r}")
    if dist is None:
        raise ValueError(
            f"{who}: distribution must be one of "
            f"{[d.value for d in Distribution]}, got {distribution!r}"
        )
    if not float(scale) > 0:
        raise ValueError(f"{who}: scale must be > 0, got {scale}")
    scale = float(scale)
    fmt = data_format_layout(data_format, who)

    def sample(key, shape, dt):
        var = scale / _fan(shape, fan_mode, fmt)
        if dist is Distribution.TRUNCATED_NORMAL:
            return truncated_sampler(0.0, math.sqrt(var) / _TRUNC_STD)(key, shape, dt)
        if dist is Distribution.RANDOM_NORMAL:
            return _normal(0.0, math.sqrt(var))(key, shape, dt)
        bound = math.sqrt(3.0 * var)
        return _uniform(-bound, bound)(key, shape, dt)

    conf = {
        "variance_scaling_conf": {
            "scale": scale,
            "variance_norm": fan_mode.conf,
            "distribution": dist.conf,
            "data_format": fmt.value,
        }
    }
    text = (
        f"{who}(scale={scale!r}, mode={mode!r}, distribution={distribution!r}, "
        f"data_format={data_format!r})"
    )
    return Initializer(conf, sample, text)


def glorot_uniform_initializer(data_format: str = "") -> Initializer:
    """Uniform on ``+-sqrt(6 / (fan_in + fan_out))`` (variance scaling, ``fan_avg``)."""
    init = variance_scaling_initializer(1.0, "fan_avg", "random_uniform", data_format)
    init._text = f"glorot_uniform_initializer(data_format={data_format!r})"
    return init


def glorot_normal_initializer(data_format: str = "") -> Initializer:
    """Normal with std ``sqrt(2 / (fan_in + fan_out))`` (variance scaling, ``fan_avg``)."""
    init = variance_scaling_initializer(1.0, "fan_avg", "random_normal", data_format)
    init._text = f"glorot_normal_initializer(data_format={data_format!r})"
    return init


xavier_uniform_initializer = glorot_uniform_initializer
xavier_normal_initializer = glorot_normal_initializer

GAINS = {None: 1.0, "linear": 1.0, "sigmoid": 1.0, "tanh": 5.0 / 3.0, "relu": math.sqrt(2.0)}


def kaiming_initializer(
    shape: Sequence[int],
    distribution: str = "random_normal",
    mode: str = "fan_in",
    nonlinearity: str | None = "leaky_relu",
    negative_slope: float = 0.0,
    data_format: str = "NCHW",
) -> Initializer:
    """He initialization for a weight of ``shape``: std ``gain / sqrt(fan)``.

    ``gain`` is 1 (``None``/``"linear"``/``"sigmoid"``), 5/3 (``"tanh"``), sqrt(2)
    (``"relu"``) or ``sqrt(2 / (1 + negative_slope**2))`` (``"leaky_relu"``; a ``None`` slope
    means 0.01). Returns a
    ``random_normal`` or ``random_uniform`` (bound ``sqrt(3) * std``) initializer, as OneFlow.
    """
    who = "kaiming_initializer"
    shape = tuple(int(d) for d in shape)
    if len(shape) < 2 or any(d <= 0 for d in shape):
        raise ValueError(f"{who}: shape must have rank >= 2 and positive dims, got {shape}")
    dist = Distribution.lookup(distribution)
    if dist not in (Distribution.RANDOM_NORMAL, Distribution.RANDOM_UNIFORM):
        raise ValueError(
            f"{who}: distribution must be 'random_normal' or 'random_uniform', got {distribution!r}"
        )
    fan_mode = FanMode.lookup(mode)
    if fan_mode is None:
        raise ValueError(f"{who}: mode must be one of {[m.value for m in FanMode]}, got {mode!r}")
    if DataFormat.lookup(data_format) not in (DataFormat.NCHW, DataFormat.NHWC):
        raise ValueError(f"{who}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    if nonlinearity == "leaky_relu":
        slope = 0.01 if negative_slope is None else float(negative_slope)
        gain = math.sqrt(2.0 / (1.0 + slope**2))
    elif nonlinearity in GAINS:
        gain = GAINS[nonlinearity]
    else:
        raise ValueError(
            f"{who}: nonlinearity must be one of None, 'linear', 'sigmoid', 'tanh', 'relu', "
            f"'leaky_relu', got {nonlinearity!r}"
        )
    std = gain / math.sqrt(_fan(shape, fan_mode, data_format_layout(data_format, who)))
    if dist is Distribution.RANDOM_NORMAL:
        return random_normal_initializer(0.0, std)
    bound = math.sqrt(3.0) * std
    return random_uniform_initializer(-bound, bound)


def empty_initializer(dtype=_dtypes.float32) -> Initializer:
    """OneFlow leaves the memory uninitialised; flowjob fills zeros (deterministic)."""
    return Initializer(
        {"empty_conf": {}}, lambda key, shape, dt: jnp.zeros(shape, dt), "empty_initializer()"
    )


_FROM_CONF = {
    "constant_conf": lambda c: constant_initializer(c.get("value", 0.0)),
    "constant_int_conf": lambda c: constant_initializer(c.get("value", 0), _dtypes.int64),
    "random_uniform_conf": lambda c: random_uniform_initializer(
        c.get("min", 0.0), c.get("max", 1.0)
    ),
    "random_uniform_int_conf": lambda c: random_uniform_initializer(
        c.get("min", 0), c.get("max", 1), _dtypes.int64
    ),
    "random_normal_conf": lambda c: random_normal_initializer(
        c.get("mean", 0.0), c.get("std", 1.0)
    ),
    "truncated_normal_conf": lambda c: truncated_normal_initializer(
        c.get("mean", 0.0), c.get("std", 1.0)
    ),
    "variance_scaling_conf": lambda c: _variance_scaling_from_conf(c),
    "empty_conf": lambda c: empty_initializer(),
}


def _variance_scaling_from_conf(c: dict) -> Initializer:
    modes = {m.conf: m.value for m in FanMode}
    dists = {d.conf: d.value for d in Distribution}
    fmt = {"channels_first": "NCHW", "channels_last": "NHWC", "": ""}
    try:
        return variance_scaling_initializer(
            c.get("scale", 1.0),
            modes[c.get("variance_norm", "kFanIn")],
            dists[c.get("distribution", "kTruncatedNormal")],
            fmt[c.get("data_format", "")],
        )
    except KeyError as exc:
        raise ValueError(f"from_conf: invalid variance_scaling_conf value {exc}") from None


def from_conf(conf: dict) -> Initializer:
    """The initializer for an ``InitializerConf`` dict (e.g. ``default_initializer_conf``)."""
    if not isinstance(conf, dict) or len(conf) != 1:
        raise ValueError(
            f"initializer conf must be a dict with one of {list(_FROM_CONF)}, got {conf!r}"
        )
    ((kind, body),) = conf.items()
    if kind not in _FROM_CONF:
        raise ValueError(f"unknown initializer conf {kind!r}; accepted: {list(_FROM_CONF)}")
    if not isinstance(body, dict):
        raise ValueError(f"initializer conf {kind!r} must map to a dict, got {body!r}")
    return _FROM_CONF[kind](body)
