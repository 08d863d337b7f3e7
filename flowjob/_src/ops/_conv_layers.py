"""``flow.layers`` convolutions that create their own weights: ``conv1d/conv2d/conv3d`` (the
weight and bias variables named as OneFlow names them), and the ``max_pool2d``/``avg_pool2d``
layers (the ``_convolution`` ops).
"""

from __future__ import annotations

from typing import Any

from ..graph import Blob, get_variable, namespace
from . import _convolution
from ._activations import relu
from ._convolution import ND_FORMATS, conv_nd
from ._layers import Activation, or_default
from ._linalg import bias_add
from ._modes import DataFormat
from ._util import check_name, fail, int_list, layer_name, require_blob
from .initializers import xavier_uniform_initializer, zeros_initializer


def conv2d(
    inputs: Blob,
    filters: int,
    kernel_size: Any = 1,
    strides: Any = 1,
    padding: Any = "VALID",
    data_format: str = "NCHW",
    dilation_rate: Any = None,
    groups: int = 1,
    activation: Activation | None = None,
    use_bias: bool = True,
    kernel_initializer: Any = None,
    bias_initializer: Any = None,
    kernel_regularizer: Any = None,
    bias_regularizer: Any = None,
    trainable: bool = True,
    name: str | None = None,
    weight_name: str | None = None,
    bias_name: str | None = None,
) -> Blob:
    """2-D convolution layer with variables ``<name>-weight`` and ``<name>-bias``.

    The weight is ``(filters, C // groups, kh, kw)`` for NCHW, ``(filters, kh, kw, C)`` for
    NHWC; kernel init defaults to ``xavier_uniform_initializer(data_format)``, bias to zeros.
    The convolution op is named ``name``; bias_add and activation live in namespace ``name``.
    """
    public = "flow.layers.conv2d"
    check_name(public, name)
    name = layer_name(name, "Conv2d")
    require_blob(public, inputs, "inputs", name)
    if inputs.ndim != 4:
        fail(public, f"inputs must be 4-D, got shape {inputs.shape}", name)
    kernel = int_list(public, kernel_size, 2, "kernel_size", name)
    if not isinstance(filters, int) or isinstance(filters, bool) or filters < 1:
        fail(public, f"filters must be a positive int, got {filters!r}", name)
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1 or filters % groups:
        fail(
            public,
            f"groups must be a positive int dividing filters ({filters}), got {groups!r}",
            name,
        )
    fmt = DataFormat.lookup(data_format, upper=True)
    if fmt == DataFormat.NCHW:
        channels = inputs.shape[1]
        shape = (filters, channels // groups) + kernel
    elif fmt == DataFormat.NHWC:
        channels = inputs.shape[3]
        if groups != 1:
            fail(public, f"NHWC convolution layers need groups=1 (as OneFlow), got {groups}", name)
        shape = (filters,) + kernel + (channels,)
    else:
        fail(public, f"data_format must be 'NCHW' or 'NHWC', got {data_format!r}", name)
    if channels % groups:
        fail(public, f"groups={groups} must divide the {channels} input channels", name)
    init = (
        xavier_uniform_initializer(data_format=fmt)
        if kernel_initializer is None
        else kernel_initializer
    )
    weight = _layer_variable(
        name, weight_name, "weight", shape, inputs.dtype, init, kernel_regularizer, trainable
    )
    out, rewrite = _convolution.conv2d_qat(
        inputs, weight, strides, padding, fmt, dilation_rate, groups=groups, name=name
    )
    if use_bias:
        bias = _layer_variable(
            name,
            bias_name,
            "bias",
            (filters,),
            inputs.dtype,
            or_default(bias_initializer, zeros_initializer),
            bias_regularizer,
            trainable,
        )
        bias = rewrite.bias(bias)
        with namespace(name):
            out = bias_add(out, bias, fmt, name="bias_add")
    # QAT quantizes a conv's output after its bias_add and relu (OneFlow's pattern)
    if activation is relu:
        with namespace(name):
            return rewrite.output(activation(out, name="activation"))
    out = rewrite.output(out)
    if callable(activation):
        with namespace(name):
            out = activation(out, name="activation")
    return out


def _layer_variable(
    layer: str,
    explicit: str | None,
    default: str,
    shape,
    dtype,
    initializer,
    regularizer,
    trainable,
) -> Blob:
    kwargs = dict(
        shape=shape,
        dtype=dtype,
        initializer=initializer,
        regularizer=regularizer,
        trainable=trainable,
        model_name=default,
        reuse=False,
    )
    if explicit is not None:
        return get_variable(explicit, **kwargs)
    with namespace(layer):
        return get_variable(default, **kwargs)


max_pool2d = _convolution.max_pool2d


avg_pool2d = _convolution.avg_pool2d


def _conv_layer(
    ndims: int,
    inputs: Blob,
    filters: int,
    kernel_size: Any,
    strides: Any,
    padding: Any,
    data_format: str,
    dilation_rate: Any,
    groups: int,
    activation: Any,
    use_bias: bool,
    kernel_initializer: Any,
    bias_initializer: Any,
    kernel_regularizer: Any,
    bias_regularizer: Any,
    trainable: bool,
    name: str | None,
    weight_name: str | None,
    bias_name: str | None,
) -> Blob:
    public = f"flow.layers.conv{ndims}d"
    check_name(public, name)
    name = layer_name(name, f"Conv{ndims}d")
    require_blob(public, inputs, "inputs", name)
    fmt = DataFormat.lookup(data_format, upper=True)
    if fmt not in ND_FORMATS[ndims] or inputs.ndim != ndims + 2:
        fail(
            public,
            f"inputs must be {ndims + 2}-D with data_format in "
            f"{tuple(map(str, ND_FORMATS[ndims]))}, got "
            f"{inputs.shape} and {data_format!r}",
            name,
        )
    kernel = int_list(public, kernel_size, ndims, "kernel_size", name)
    if not isinstance(filters, int) or isinstance(filters, bool) or filters < 1:
        fail(public, f"filters must be a positive int, got {filters!r}", name)
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1 or filters % groups:
        fail(
            public,
            f"groups must be a positive int dividing filters ({filters}), got {groups!r}",
            name,
        )
    first = fmt.channels_first
    channels = inputs.shape[1] if first else inputs.shape[-1]
    if channels % groups:
        fail(public, f"groups={groups} must divide the {channels} input channels", name)
    if not first and groups != 1:
        fail(public, f"{fmt} convolution layers need groups=1 (as OneFlow), got {groups}", name)
    shape = (
        (filters, channels // groups) + kernel
        if first
        else (filters,) + kernel + (channels // groups,)
    )
    init = (
        xavier_uniform_initializer(data_format=fmt)
        if kernel_initializer is None
        else kernel_initializer
    )
    weight = _layer_variable(
        name, weight_name, "weight", shape, inputs.dtype, init, kernel_regularizer, trainable
    )
    out = conv_nd(ndims, inputs, weight, strides, padding, fmt, dilation_rate, groups, name)
    if use_bias:
        bias = _layer_variable(
            name,
            bias_name,
            "bias",
            (filters,),
            inputs.dtype,
            or_default(bias_initializer, zeros_initializer),
            bias_regularizer,
            trainable,
        )
        with namespace(name):
            out = bias_add(out, bias, fmt, name="bias_add")
    if callable(activation):
        with namespace(name):
            out = activation(out, name="activation")
    return out


def conv1d_layer(
    inputs: Blob,
    filters: int,
    kernel_size: Any = 1,
    strides: Any = 1,
    padding: Any = "VALID",
    data_format: str = "NCW",
    dilation_rate: Any = None,
    groups: int = 1,
    activation: Any = None,
    use_bias: bool = True,
    kernel_initializer: Any = None,
    bias_initializer: Any = None,
    kernel_regularizer: Any = None,
    bias_regularizer: Any = None,
    trainable: bool = True,
    name: str | None = None,
    weight_name: str | None = None,
    bias_name: str | None = None,
) -> Blob:
    """``flow.layers.conv1d``: variables ``<name>-weight`` and ``<name>-bias``."""
    return _conv_layer(
        1,
        inputs,
        filters,
        kernel_size,
        strides,
        padding,
        data_format,
        dilation_rate,
        groups,
        activation,
        use_bias,
        kernel_initializer,
        bias_initializer,
        kernel_regularizer,
        bias_regularizer,
        trainable,
        name,
        weight_name,
        bias_name,
    )


def conv3d_layer(
    inputs: Blob,
    filters: int,
    kernel_size: Any = 1,
    strides: Any = 1,
    padding: Any = "VALID",
    data_format: str = "NCDHW",
    dilation_rate: Any = None,
    groups: int = 1,
    activation: Any = None,
    use_bias: bool = True,
    kernel_initializer: Any = None,
    bias_initializer: Any = None,
    kernel_regularizer: Any = None,
    bias_regularizer: Any = None,
    trainable: bool = True,
    name: str | None = None,
    weight_name: str | None = None,
    bias_name: str | None = None,
) -> Blob:
    """``flow.layers.conv3d``: variables ``<name>-weight`` and ``<name>-bias``."""
    return _conv_layer(
        3,
        inputs,
        filters,
        kernel_size,
        strides,
        padding,
        data_format,
        dilation_rate,
        groups,
        activation,
        use_bias,
        kernel_initializer,
        bias_initializer,
        kernel_regularizer,
        bias_regularizer,
        trainable,
        name,
        weight_name,
        bias_name,
    )
