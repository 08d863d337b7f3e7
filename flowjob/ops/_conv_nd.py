"""1-D and 3-D convolutions: ``flow.nn.conv1d/conv3d`` and ``flow.layers.conv1d/conv3d``.

Same rules as the 2-D ones in ``_conv``/``_nn``/``_layers`` (padding strings, explicit
per-axis paddings, groups, variable names): data formats ``NCW``/``NWC`` and
``NCDHW``/``NDHWC``; weights ``(out, in // groups, *kernel)`` channels-first or
``(out, *kernel, in // groups)`` channels-last.
"""

from __future__ import annotations

from typing import Any

from jax import lax

from ..graph import Blob, apply_op, namespace
from . import _conv
from ._layers import _layer_name, _layer_variable, _or
from ._nn import bias_add
from ._util import check_name, fail, int_list, require_blob
from .initializers import xavier_uniform_initializer, zeros_initializer

_FORMATS = {1: ("NCW", "NWC"), 3: ("NCDHW", "NDHWC")}


def _kernel_spec(fmt: str) -> str:
    spatial = fmt[2:] if fmt.startswith("NC") else fmt[1:-1]
    return "OI" + spatial if fmt.startswith("NC") else "O" + spatial + "I"


def _lower_conv_nd(x, w, *, strides, pads, dilations, groups, data_format):
    return lax.conv_general_dilated(
        x, w, window_strides=strides, padding=pads, rhs_dilation=dilations,
        dimension_numbers=(data_format, _kernel_spec(data_format), data_format),
        feature_group_count=groups)


def _conv_nd(ndims: int, input: Blob, filters: Blob, strides: Any, padding: Any,  # noqa: A002
             data_format: str, dilations: Any, groups: int, name: str | None) -> Blob:
    public = f"flow.nn.conv{ndims}d"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    require_blob(public, filters, "filters", name)
    fmt = data_format.upper() if isinstance(data_format, str) else data_format
    if fmt not in _FORMATS[ndims]:
        fail(public, f"data_format must be one of {_FORMATS[ndims]}, got {data_format!r}", name)
    first = fmt.startswith("NC")
    if input.ndim != ndims + 2 or filters.ndim != ndims + 2:
        fail(public, f"input and filters must be {ndims + 2}-D, got {input.shape} and "
                     f"{filters.shape}", name)
    strides = int_list(public, strides, ndims, "strides", name)
    dilations = int_list(public, 1 if dilations is None else dilations, ndims, "dilations",
                         name)
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1:
        fail(public, f"groups must be an int >= 1, got {groups!r}", name)
    channels = input.shape[1] if first else input.shape[-1]
    spatial = input.shape[2:] if first else input.shape[1:-1]
    kernel = filters.shape[2:] if first else filters.shape[1:-1]
    filter_in = filters.shape[1] if first else filters.shape[-1]
    if channels % groups or filters.shape[0] % groups or filter_in * groups != channels:
        fail(public, f"filters {filters.shape} with groups={groups} do not fit the {fmt} input "
                     f"{input.shape} ({channels} channels)", name)
    # _conv's padding rules only need to know where the spatial axes start
    proxy = "NCHW" if first else "NHWC"
    pads = _conv.resolve_padding(padding, proxy, spatial, kernel, strides, dilations,
                                 lambda message: fail(public, message, name))
    for n, k, d, p in zip(spatial, kernel, dilations, pads):
        if n + p[0] + p[1] < (k - 1) * d + 1:
            fail(public, f"the (dilated) kernel {tuple(kernel)} is larger than the padded input "
                         f"{tuple(spatial)} (padding {pads})", name)
    return apply_op(f"conv{ndims}d", _lower_conv_nd, [input, filters],
                    attrs={"strides": strides, "pads": pads, "dilations": dilations,
                           "groups": groups, "data_format": fmt},
                    name=name, prefix=f"Conv{ndims}d")


def conv1d(input: Blob, filters: Blob, strides: Any, padding: Any,  # noqa: A002
           data_format: str = "NCW", dilations: Any = None, groups: int = 1,
           name: str | None = None) -> Blob:
    """1-D convolution of ``input`` with the weight blob ``filters``."""
    return _conv_nd(1, input, filters, strides, padding, data_format, dilations, groups, name)


def conv3d(input: Blob, filters: Blob, strides: Any, padding: Any,  # noqa: A002
           data_format: str = "NCDHW", dilations: Any = None, groups: int = 1,
           name: str | None = None) -> Blob:
    """3-D convolution of ``input`` with the weight blob ``filters``."""
    return _conv_nd(3, input, filters, strides, padding, data_format, dilations, groups, name)


def _conv_layer(ndims: int, inputs: Blob, filters: int, kernel_size: Any, strides: Any,
                padding: Any, data_format: str, dilation_rate: Any, groups: int,
                activation: Any, use_bias: bool, kernel_initializer: Any,
                bias_initializer: Any, kernel_regularizer: Any, bias_regularizer: Any,
                trainable: bool, name: str | None, weight_name: str | None,
                bias_name: str | None) -> Blob:
    public = f"flow.layers.conv{ndims}d"
    check_name(public, name)
    name = _layer_name(name, f"Conv{ndims}d")
    require_blob(public, inputs, "inputs", name)
    fmt = data_format.upper() if isinstance(data_format, str) else data_format
    if fmt not in _FORMATS[ndims] or inputs.ndim != ndims + 2:
        fail(public, f"inputs must be {ndims + 2}-D with data_format in {_FORMATS[ndims]}, got "
                     f"{inputs.shape} and {data_format!r}", name)
    kernel = int_list(public, kernel_size, ndims, "kernel_size", name)
    if not isinstance(filters, int) or isinstance(filters, bool) or filters < 1:
        fail(public, f"filters must be a positive int, got {filters!r}", name)
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1 or filters % groups:
        fail(public, f"groups must be a positive int dividing filters ({filters}), got "
                     f"{groups!r}", name)
    first = fmt.startswith("NC")
    channels = inputs.shape[1] if first else inputs.shape[-1]
    if channels % groups:
        fail(public, f"groups={groups} must divide the {channels} input channels", name)
    if not first and groups != 1:
        fail(public, f"{fmt} convolution layers need groups=1 (as OneFlow), got {groups}", name)
    shape = ((filters, channels // groups) + kernel if first
             else (filters,) + kernel + (channels // groups,))
    init = (xavier_uniform_initializer(data_format=fmt) if kernel_initializer is None
            else kernel_initializer)
    weight = _layer_variable(name, weight_name, "weight", shape, inputs.dtype, init,
                             kernel_regularizer, trainable)
    out = _conv_nd(ndims, inputs, weight, strides, padding, fmt, dilation_rate, groups, name)
    if use_bias:
        bias = _layer_variable(name, bias_name, "bias", (filters,), inputs.dtype,
                               _or(bias_initializer, zeros_initializer), bias_regularizer,
                               trainable)
        with namespace(name):
            out = bias_add(out, bias, fmt, name="bias_add")
    if callable(activation):
        with namespace(name):
            out = activation(out, name="activation")
    return out


def conv1d_layer(inputs: Blob, filters: int, kernel_size: Any = 1, strides: Any = 1,
                 padding: Any = "VALID", data_format: str = "NCW", dilation_rate: Any = None,
                 groups: int = 1, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = None,
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 trainable: bool = True, name: str | None = None,
                 weight_name: str | None = None, bias_name: str | None = None) -> Blob:
    """``flow.layers.conv1d``: variables ``<name>-weight`` and ``<name>-bias``."""
    return _conv_layer(1, inputs, filters, kernel_size, strides, padding, data_format,
                       dilation_rate, groups, activation, use_bias, kernel_initializer,
                       bias_initializer, kernel_regularizer, bias_regularizer, trainable, name,
                       weight_name, bias_name)


def conv3d_layer(inputs: Blob, filters: int, kernel_size: Any = 1, strides: Any = 1,
                 padding: Any = "VALID", data_format: str = "NCDHW", dilation_rate: Any = None,
                 groups: int = 1, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = None,
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 trainable: bool = True, name: str | None = None,
                 weight_name: str | None = None, bias_name: str | None = None) -> Blob:
    """``flow.layers.conv3d``: variables ``<name>-weight`` and ``<name>-bias``."""
    return _conv_layer(3, inputs, filters, kernel_size, strides, padding, data_format,
                       dilation_rate, groups, activation, use_bias, kernel_initializer,
                       bias_initializer, kernel_regularizer, bias_regularizer, trainable, name,
                       weight_name, bias_name)
