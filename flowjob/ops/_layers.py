"""``flow.layers``: ops that create their own variables (dense, conv2d, normalization)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import _dtypes
from ..graph import Blob, Distribute, broadcast, current_graph, get_variable, namespace
from . import _nn, _normalization
from ._linalg import matmul
from ._shape import reshape
from ._util import check_name, fail, int_list, norm_axis, require_blob
from .initializers import ones_initializer, xavier_uniform_initializer, zeros_initializer

Activation = Callable[..., Blob]


def _layer_name(name: str | None, default: str) -> str:
    """OneFlow v0.4 named every unnamed layer ``default`` (a second one collided); mid-2020
    OneFlow named them uniquely. flowjob does both: the first unnamed layer of a job keeps
    ``default`` (so v0.4 checkpoints load), later ones get ``<default>_<n>``."""
    if name is not None:
        return name
    counts = current_graph().unnamed_layers
    n = counts.get(default, 0)
    counts[default] = n + 1
    return default if n == 0 else f"{default}_{n}"


def _or(initializer: Any, default: Callable[[], Any]) -> Any:
    return default() if initializer is None else initializer


def _distribute_kind(d: Any) -> str:
    if not isinstance(d, Distribute):
        fail("flow.layers.dense", "model_distribute must be flow.distribute.auto(), broadcast() "
                                  f"or split(0), got {d!r}")
    if d.kind == "split" and d.axis != 0:
        fail("flow.layers.dense", f"model_distribute split axis must be 0, got {d!r}")
    return d.kind


def dense(inputs: Blob, units: int, activation: Activation | None = None, use_bias: bool = True,
          kernel_initializer: Any = None, bias_initializer: Any = None,
          kernel_regularizer: Any = None, bias_regularizer: Any = None, trainable: bool = True,
          name: str | None = None, model_distribute: Distribute | None = None) -> Blob:
    """Fully connected layer ``x @ W.T + b``.

    Variables ``<name>-weight`` of shape ``(units, in_features)`` and ``<name>-bias`` default to
    zeros (as OneFlow). Inputs of rank > 2 are flattened to ``(-1, in_features)`` and the result
    reshaped back. ``activation`` is called as ``activation(out, name="activation")``.
    """
    public = "flow.layers.dense"
    check_name(public, name)
    name = _layer_name(name, "Dense")
    require_blob(public, inputs, "inputs", name)
    if inputs.ndim < 2:
        fail(public, f"inputs must have rank >= 2, got shape {inputs.shape}", name)
    if not isinstance(units, int) or isinstance(units, bool) or units < 1:
        fail(public, f"units must be a positive int, got {units!r}", name)
    distribute = broadcast() if model_distribute is None else model_distribute
    kind = _distribute_kind(distribute)
    if kind == "split" and inputs.ndim != 2:
        fail(public, f"model_distribute=split(0) needs 2-D inputs, got shape {inputs.shape}", name)
    in_shape = inputs.shape
    x = reshape(inputs, (-1, in_shape[-1])) if inputs.ndim > 2 else inputs
    with namespace(name):
        weight = get_variable(
            "weight", shape=(units, in_shape[-1]), dtype=inputs.dtype,
            initializer=_or(kernel_initializer, zeros_initializer),
            regularizer=kernel_regularizer, trainable=trainable, model_name="weight",
            distribute=distribute, reuse=False)
        if kind != "broadcast":
            weight = weight.with_distribute(distribute)
        out = matmul(x, weight, transpose_b=True, name="matmul")
        if use_bias:
            bias = get_variable(
                "bias", shape=(units,), dtype=inputs.dtype,
                initializer=_or(bias_initializer, zeros_initializer),
                regularizer=bias_regularizer, trainable=trainable, model_name="bias",
                distribute=distribute, reuse=False)
            if kind != "broadcast":
                bias = bias.with_distribute(distribute)
            out = _nn.bias_add(out, bias, name="bias_add")
        if callable(activation):
            out = activation(out, name="activation")
    if len(in_shape) > 2:
        out = reshape(out, in_shape[:-1] + (units,))
    return out


def conv2d(inputs: Blob, filters: int, kernel_size: Any = 1, strides: Any = 1,
           padding: Any = "VALID", data_format: str = "NCHW", dilation_rate: Any = None,
           groups: int = 1, activation: Activation | None = None, use_bias: bool = True,
           kernel_initializer: Any = None, bias_initializer: Any = None,
           kernel_regularizer: Any = None, bias_regularizer: Any = None, trainable: bool = True,
           name: str | None = None, weight_name: str | None = None,
           bias_name: str | None = None) -> Blob:
    """2-D convolution layer with variables ``<name>-weight`` and ``<name>-bias``.

    The weight is ``(filters, C // groups, kh, kw)`` for NCHW, ``(filters, kh, kw, C)`` for
    NHWC; kernel init defaults to ``xavier_uniform_initializer(data_format)``, bias to zeros.
    The convolution op is named ``name``; bias_add and activation live in namespace ``name``.
    """
    public = "flow.layers.conv2d"
    check_name(public, name)
    name = _layer_name(name, "Conv2d")
    require_blob(public, inputs, "inputs", name)
    if inputs.ndim != 4:
        fail(public, f"inputs must be 4-D, got shape {inputs.shape}", name)
    kernel = int_list(public, kernel_size, 2, "kernel_size", name)
    if not isinstance(filters, int) or isinstance(filters, bool) or filters < 1:
        fail(public, f"filters must be a positive int, got {filters!r}", name)
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1 or filters % groups:
        fail(public, f"groups must be a positive int dividing filters ({filters}), got "
                     f"{groups!r}", name)
    fmt = data_format.upper() if isinstance(data_format, str) else data_format
    if fmt == "NCHW":
        channels = inputs.shape[1]
        shape = (filters, channels // groups) + kernel
    elif fmt == "NHWC":
        channels = inputs.shape[3]
        if groups != 1:
            fail(public, f"NHWC convolution layers need groups=1 (as OneFlow), got {groups}",
                 name)
        shape = (filters,) + kernel + (channels,)
    else:
        fail(public, f"data_format must be 'NCHW' or 'NHWC', got {data_format!r}", name)
    if channels % groups:
        fail(public, f"groups={groups} must divide the {channels} input channels", name)
    init = (xavier_uniform_initializer(data_format=fmt) if kernel_initializer is None
            else kernel_initializer)
    weight = _layer_variable(name, weight_name, "weight", shape, inputs.dtype, init,
                             kernel_regularizer, trainable)
    out = _nn.conv2d(inputs, weight, strides, padding, fmt, dilation_rate, groups=groups,
                     name=name)
    if use_bias:
        bias = _layer_variable(name, bias_name, "bias", (filters,), inputs.dtype,
                               _or(bias_initializer, zeros_initializer), bias_regularizer,
                               trainable)
        with namespace(name):
            out = _nn.bias_add(out, bias, fmt, name="bias_add")
    if callable(activation):
        with namespace(name):
            out = activation(out, name="activation")
    return out


def _layer_variable(layer: str, explicit: str | None, default: str, shape, dtype, initializer,
                    regularizer, trainable) -> Blob:
    kwargs = dict(shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                  trainable=trainable, model_name=default, reuse=False)
    if explicit is not None:
        return get_variable(explicit, **kwargs)
    with namespace(layer):
        return get_variable(default, **kwargs)


def batch_normalization(inputs: Blob, axis: int = -1, momentum: float = 0.99,
                        epsilon: float = 0.001, center: bool = True, scale: bool = True,
                        beta_initializer: Any = None, gamma_initializer: Any = None,
                        beta_regularizer: Any = None, gamma_regularizer: Any = None,
                        moving_mean_initializer: Any = None,
                        moving_variance_initializer: Any = None, trainable: bool = True,
                        training: bool = True, name: str | None = None,
                        gamma_name: str | None = None, beta_name: str | None = None,
                        moving_mean_name: str | None = None,
                        moving_variance_name: str | None = None) -> Blob:
    """Batch normalization over every axis but ``axis``.

    Variables ``<name>-beta``/``-gamma`` (if center/scale) and ``<name>-moving_mean``/
    ``-moving_variance``. In train jobs (with ``training`` and ``trainable``) it normalizes
    with the batch mean and population variance and, after the job, sets
    ``moving = momentum * moving + (1 - momentum) * batch``; otherwise it uses the moving
    statistics and changes nothing. ``gamma_name``... give a variable a full name of its own
    instead of ``<name>-gamma``...
    """
    public = "flow.layers.batch_normalization"
    check_name(public, name)
    name = _layer_name(name, "BatchNorm")
    require_blob(public, inputs, "inputs", name)
    if not inputs.dtype.is_floating:
        fail(public, f"needs a floating point input, got {inputs.dtype.name}", name)
    axis = norm_axis(public, axis, inputs.ndim, name)
    if not 0.0 <= momentum <= 1.0:
        fail(public, f"momentum must be in [0, 1], got {momentum!r}", name)
    graph = current_graph()
    training = bool(training and trainable and graph.is_train)
    params_shape = (inputs.shape[axis],)
    params_dtype = _dtypes.float32 if inputs.dtype == _dtypes.float16 else inputs.dtype

    def variable(var: str, explicit: str | None, init, default, regularizer=None,
                 var_trainable=trainable):
        kwargs = dict(shape=params_shape, dtype=params_dtype, initializer=_or(init, default),
                      regularizer=regularizer, trainable=var_trainable, distribute=broadcast(),
                      reuse=False)
        if explicit is not None:
            return get_variable(explicit, **kwargs)
        with namespace(name):
            return get_variable(var, **kwargs)

    beta = variable("beta", beta_name, beta_initializer, zeros_initializer,
                    beta_regularizer) if center else None
    gamma = variable("gamma", gamma_name, gamma_initializer, ones_initializer,
                     gamma_regularizer) if scale else None
    moving_mean = variable("moving_mean", moving_mean_name, moving_mean_initializer,
                           zeros_initializer, var_trainable=False)
    moving_variance = variable("moving_variance", moving_variance_name,
                               moving_variance_initializer, ones_initializer,
                               var_trainable=False)
    if not training:
        return _normalization.batch_normalization(
            inputs, moving_mean, moving_variance, offset=beta, scale=gamma,
            variance_epsilon=epsilon, axis=axis, name=name)
    y, new_mean, new_variance = _normalization.batch_norm_train(
        inputs, moving_mean, moving_variance, gamma, beta, axis, epsilon, momentum, name)
    graph.assign(moving_mean, new_mean)
    graph.assign(moving_variance, new_variance)
    return y


def layer_norm(inputs: Blob, center: bool = True, scale: bool = True, trainable: bool = True,
               begin_norm_axis: int = 1, begin_params_axis: int = -1, epsilon: float = 1e-5,
               name: str | None = None) -> Blob:
    """Layer normalization with variables ``<name>-beta`` (zeros) and ``<name>-gamma`` (ones)
    of shape ``inputs.shape[begin_params_axis:]``."""
    public = "flow.layers.layer_norm"
    check_name(public, name)
    name = _layer_name(name, "LayerNorm")
    require_blob(public, inputs, "inputs", name)
    params_axis = norm_axis(public, begin_params_axis, inputs.ndim, name, "begin_params_axis")
    shape = inputs.shape[params_axis:]
    trainable = trainable and (center or scale)
    beta = gamma = None
    with namespace(name):
        if center:
            beta = get_variable("beta", shape=shape, dtype=inputs.dtype,
                                initializer=zeros_initializer(), trainable=trainable,
                                model_name="beta", distribute=broadcast(), reuse=False)
        if scale:
            gamma = get_variable("gamma", shape=shape, dtype=inputs.dtype,
                                 initializer=ones_initializer(), trainable=trainable,
                                 model_name="gamma", distribute=broadcast(), reuse=False)
    return _normalization.layer_norm(inputs, gamma, beta, begin_norm_axis, params_axis,
                                     epsilon, name=name)


max_pool2d = _nn.max_pool2d
avg_pool2d = _nn.avg_pool2d
