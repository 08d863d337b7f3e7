"""``flow.nn`` ops with parameters passed in: convolution, pooling, bias_add, dropout."""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp

from ..graph import Blob, apply_op, current_graph
from . import _conv
from ._util import check_name, fail, int_list, require_blob


def _failer(op: str, name: str | None):
    return lambda message: fail(op, message, name)


def conv2d(input: Blob, filters: Blob, strides: Any, padding: Any,  # noqa: A002
           data_format: str = "NCHW", dilations: Any = None, groups: int = 1,
           name: str | None = None) -> Blob:
    """2-D convolution of ``input`` with the weight blob ``filters``.

    ``filters`` is ``(out_channels, in_channels // groups, kh, kw)`` for NCHW and
    ``(out_channels, kh, kw, in_channels // groups)`` for NHWC. See ``_conv`` for padding.
    """
    public = "flow.nn.conv2d"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    require_blob(public, filters, "filters", name)
    fmt = _conv.data_format_of(data_format, _failer(public, name))
    if input.ndim != 4 or filters.ndim != 4:
        fail(public, f"input and filters must be 4-D, got {input.shape} and {filters.shape}", name)
    strides = int_list(public, strides, 2, "strides", name)
    dilations = int_list(public, 1 if dilations is None else dilations, 2, "dilations", name)
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1:
        fail(public, f"groups must be an int >= 1, got {groups!r}", name)
    h_axis, w_axis = _conv.spatial_axes(fmt)
    channels = input.shape[1] if fmt == "NCHW" else input.shape[3]
    kernel = filters.shape[2:4] if fmt == "NCHW" else filters.shape[1:3]
    filter_in = filters.shape[1] if fmt == "NCHW" else filters.shape[3]
    if channels % groups or filters.shape[0] % groups:
        fail(public, f"groups={groups} must divide the input channels ({channels}) and the "
                     f"filters ({filters.shape[0]})", name)
    if filter_in * groups != channels:
        fail(public, f"filters {filters.shape} expect {filter_in * groups} input channels "
                     f"({filter_in} per group, groups={groups}), but the {fmt} input "
                     f"{input.shape} has {channels}", name)
    spatial = (input.shape[h_axis], input.shape[w_axis])
    pads = _conv.resolve_padding(padding, fmt, spatial, kernel, strides, dilations,
                                 _failer(public, name))
    for n, k, d, p in zip(spatial, kernel, dilations, pads):
        if n + p[0] + p[1] < (k - 1) * d + 1:
            fail(public, f"the (dilated) kernel {tuple(kernel)} is larger than the padded input "
                         f"{spatial} (padding {pads})", name)
    return apply_op("conv2d", _conv.lower_conv2d, [input, filters],
                    attrs={"strides": strides, "pads": pads, "dilations": dilations,
                           "groups": groups, "data_format": fmt}, name=name, prefix="Conv2d")


def _pool(mode: str, input: Blob, ksize: Any, strides: Any, padding: Any,  # noqa: A002
          data_format: str, ceil_mode: bool, name: str | None) -> Blob:
    public = f"flow.nn.{mode}_pool2d"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    fmt = _conv.data_format_of(data_format, _failer(public, name))
    if input.ndim != 4:
        fail(public, f"input must be 4-D ({fmt}), got shape {input.shape}", name)
    if mode == "avg" and not input.dtype.is_floating:
        fail(public, f"needs a floating point input, got {input.dtype.name}", name)
    ksize = int_list(public, ksize, 2, "ksize", name)
    strides = int_list(public, strides, 2, "strides", name)
    spatial = tuple(input.shape[a] for a in _conv.spatial_axes(fmt))
    pads = _conv.resolve_padding(padding, fmt, spatial, ksize, strides, (1, 1),
                                 _failer(public, name))
    for n, k, p in zip(spatial, ksize, pads):
        if n + p[0] + p[1] < k:
            fail(public, f"the window {ksize} is larger than the padded input {spatial} "
                         f"(padding {pads})", name)
    prefix = "MaxPool2D" if mode == "max" else "AvgPool2D"
    return apply_op(f"{mode}_pool_2d", functools.partial(_conv.lower_pool2d, mode=mode),
                    [input], attrs={"ksize": ksize, "strides": strides, "pads": pads,
                                    "ceil_mode": bool(ceil_mode), "data_format": fmt},
                    name=name, prefix=prefix)


def max_pool2d(input: Blob, ksize: Any, strides: Any, padding: Any,  # noqa: A002
               data_format: str = "NCHW", ceil_mode: bool = False,
               name: str | None = None) -> Blob:
    """2-D max pooling; ``ksize``/``strides`` are an int or 1 or 2 ints."""
    return _pool("max", input, ksize, strides, padding, data_format, ceil_mode, name)


def avg_pool2d(input: Blob, ksize: Any, strides: Any, padding: Any,  # noqa: A002
               data_format: str = "NCHW", ceil_mode: bool = False,
               name: str | None = None) -> Blob:
    """2-D average pooling over the real (non-padding) elements of each window."""
    return _pool("avg", input, ksize, strides, padding, data_format, ceil_mode, name)


def _lower_bias_add(value, bias, *, axis):
    shape = [1] * value.ndim
    shape[axis] = bias.shape[0]
    return value + bias.reshape(shape)


def bias_add(value: Blob, bias: Blob, data_format: str | None = None,
             name: str | None = None) -> Blob:
    """Adds the 1-D ``bias`` along the channel axis: 1 for None/"NC...", last for "N...C"."""
    public = "flow.nn.bias_add"
    name = check_name(public, name)
    require_blob(public, value, "value", name)
    require_blob(public, bias, "bias", name)
    if data_format is None or data_format.startswith("NC"):
        axis = 1
    elif data_format.startswith("N") and data_format.endswith("C"):
        axis = value.ndim - 1
    else:
        fail(public, f"data_format must be of the form 'N...C' or 'NC...', got {data_format!r}",
             name)
    if value.ndim < 2 or axis >= value.ndim:
        fail(public, f"value must have rank >= 2 with a channel axis {axis}, got {value.shape}",
             name)
    if bias.ndim != 1 or bias.shape[0] != value.shape[axis]:
        fail(public, f"bias must be 1-D with {value.shape[axis]} elements (axis {axis} of "
                     f"value {value.shape}), got shape {bias.shape}", name)
    return apply_op("bias_add", _lower_bias_add, [value, bias], attrs={"axis": axis}, name=name,
                    prefix="BiasAdd")


def _lower_dropout(x, *, key, rate, noise_shape, seed):
    keep = jax.random.bernoulli(key, 1.0 - rate, noise_shape or x.shape)
    return jnp.where(keep, x * jnp.asarray(1.0 / (1.0 - rate), x.dtype), jnp.zeros((), x.dtype))


def dropout(x: Blob, rate: float, noise_shape: Any = None, seed: int | None = None,
            name: str | None = None) -> Blob:
    """Zeroes each element with probability ``rate`` and scales the rest by ``1/(1-rate)``.

    Active only in train jobs; predict jobs and ``rate == 0`` return ``x`` itself. Each call of
    the job draws a fresh mask. ``noise_shape`` (broadcastable to ``x``) shares one keep/drop
    decision along its size-1 axes. Dropouts given the same ``seed`` draw the same masks (a
    stream of the session's seed and the train step, as OneFlow's seeded generators).
    """
    public = "flow.nn.dropout"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0.0 <= rate < 1.0:
        fail(public, f"rate must be a float in [0, 1), got {rate!r}", name)
    if not x.dtype.is_floating:
        fail(public, f"needs a floating point input, got {x.dtype.name}", name)
    if seed is not None and name is None:
        fail(public, "a seed requires a name (as in OneFlow)")
    shape = None
    if noise_shape is not None:
        if not isinstance(noise_shape, (list, tuple)) or len(noise_shape) != x.ndim or any(
                n not in (1, d) for n, d in zip(noise_shape, x.shape)):
            fail(public, f"noise_shape must have one entry per axis of {x.shape}, each 1 or the "
                         f"axis size, got {noise_shape!r}", name)
        shape = tuple(int(n) for n in noise_shape)
    if not current_graph().is_train or rate == 0.0:
        return x
    return apply_op("dropout", _lower_dropout, [x],
                    attrs={"rate": float(rate), "noise_shape": shape, "seed": seed}, name=name,
                    prefix="Dropout", rng=True)
