"""Normalization layers: ``flow.layers.batch_normalization``, ``layer_norm``,
``batch_normalization_relu`` and ``batch_normalization_add_relu``.

OneFlow fuses the last two into one kernel on GPU; its fallback (and flowjob) is the batch
normalization layer, then ``+ addend`` and relu in namespace ``BatchNormAddRelu``. The
variables are the batch normalization layer's, so checkpoints are interchangeable.
"""

from __future__ import annotations

from typing import Any

from .. import _dtypes
from ..graph import Blob, broadcast, current_graph, get_variable, namespace
from . import _normalization
from ._activations import relu
from ._layers import or_default
from ._shape import reshape
from ._unary import sqrt
from ._util import check_name, fail, layer_name, norm_axis, require_blob
from .initializers import ones_initializer, zeros_initializer


def batch_normalization_add_relu(
    inputs: Blob,
    addend: Blob | None = None,
    axis: int = -1,
    momentum: float = 0.99,
    epsilon: float = 0.001,
    center: bool = True,
    scale: bool = True,
    beta_initializer: Any = None,
    gamma_initializer: Any = None,
    beta_regularizer: Any = None,
    gamma_regularizer: Any = None,
    moving_mean_initializer: Any = None,
    moving_variance_initializer: Any = None,
    trainable: bool = True,
    training: bool = True,
    name: str | None = None,
    gamma_name: str | None = None,
    beta_name: str | None = None,
    moving_mean_name: str | None = None,
    moving_variance_name: str | None = None,
) -> Blob:
    """``relu(batch_normalization(inputs) + addend)``; ``addend`` has the inputs' shape."""
    public = "flow.layers.batch_normalization_add_relu"
    if addend is not None:
        require_blob(public, addend, "addend", name)
        require_blob(public, inputs, "inputs", name)
        if addend.shape != inputs.shape:
            fail(
                public, f"addend {addend.shape} must have the shape of inputs {inputs.shape}", name
            )
    out = batch_normalization(
        inputs,
        axis=axis,
        momentum=momentum,
        epsilon=epsilon,
        center=center,
        scale=scale,
        beta_initializer=beta_initializer,
        gamma_initializer=gamma_initializer,
        beta_regularizer=beta_regularizer,
        gamma_regularizer=gamma_regularizer,
        moving_mean_initializer=moving_mean_initializer,
        moving_variance_initializer=moving_variance_initializer,
        trainable=trainable,
        training=training,
        name=name,
        gamma_name=gamma_name,
        beta_name=beta_name,
        moving_mean_name=moving_mean_name,
        moving_variance_name=moving_variance_name,
    )
    with namespace("BatchNormAddRelu"):
        if addend is not None:
            out = out + addend
        return relu(out)


def batch_normalization_relu(
    inputs: Blob,
    axis: int = -1,
    momentum: float = 0.99,
    epsilon: float = 0.001,
    center: bool = True,
    scale: bool = True,
    beta_initializer: Any = None,
    gamma_initializer: Any = None,
    beta_regularizer: Any = None,
    gamma_regularizer: Any = None,
    moving_mean_initializer: Any = None,
    moving_variance_initializer: Any = None,
    trainable: bool = True,
    training: bool = True,
    name: str | None = None,
) -> Blob:
    """``relu(batch_normalization(inputs))``."""
    return batch_normalization_add_relu(
        inputs,
        None,
        axis,
        momentum,
        epsilon,
        center,
        scale,
        beta_initializer,
        gamma_initializer,
        beta_regularizer,
        gamma_regularizer,
        moving_mean_initializer,
        moving_variance_initializer,
        trainable,
        training,
        name,
    )


def batch_normalization(
    inputs: Blob,
    axis: int = -1,
    momentum: float = 0.99,
    epsilon: float = 0.001,
    center: bool = True,
    scale: bool = True,
    beta_initializer: Any = None,
    gamma_initializer: Any = None,
    beta_regularizer: Any = None,
    gamma_regularizer: Any = None,
    moving_mean_initializer: Any = None,
    moving_variance_initializer: Any = None,
    trainable: bool = True,
    training: bool = True,
    name: str | None = None,
    gamma_name: str | None = None,
    beta_name: str | None = None,
    moving_mean_name: str | None = None,
    moving_variance_name: str | None = None,
) -> Blob:
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
    name = layer_name(name, "BatchNorm")
    require_blob(public, inputs, "inputs", name)
    if not inputs.dtype.is_floating:
        fail(public, f"needs a floating point input, got {inputs.dtype.name}", name)
    axis = norm_axis(public, axis, inputs.ndim, name)
    if not 0.0 <= momentum <= 1.0:
        fail(public, f"momentum must be in [0, 1], got {momentum!r}", name)
    graph = current_graph()
    training = bool(training and trainable and graph.is_trainable)
    params_shape = (inputs.shape[axis],)
    params_dtype = _dtypes.float32 if inputs.dtype == _dtypes.float16 else inputs.dtype

    def variable(
        var: str, explicit: str | None, init, default, regularizer=None, var_trainable=trainable
    ):
        kwargs = dict(
            shape=params_shape,
            dtype=params_dtype,
            initializer=or_default(init, default),
            regularizer=regularizer,
            trainable=var_trainable,
            distribute=broadcast(),
            reuse=False,
        )
        if explicit is not None:
            return get_variable(explicit, **kwargs)
        with namespace(name):
            return get_variable(var, **kwargs)

    beta = (
        variable("beta", beta_name, beta_initializer, zeros_initializer, beta_regularizer)
        if center
        else None
    )
    gamma = (
        variable("gamma", gamma_name, gamma_initializer, ones_initializer, gamma_regularizer)
        if scale
        else None
    )
    moving_mean = variable(
        "moving_mean",
        moving_mean_name,
        moving_mean_initializer,
        zeros_initializer,
        var_trainable=False,
    )
    moving_variance = variable(
        "moving_variance",
        moving_variance_name,
        moving_variance_initializer,
        ones_initializer,
        var_trainable=False,
    )
    if not training:
        return _normalization.batch_normalization(
            inputs,
            moving_mean,
            moving_variance,
            offset=beta,
            scale=gamma,
            variance_epsilon=epsilon,
            axis=axis,
            name=name,
        )
    y, new_mean, new_variance = _normalization.batch_norm_train(
        inputs, moving_mean, moving_variance, gamma, beta, axis, epsilon, momentum, name
    )
    graph.assign(moving_mean, new_mean)
    graph.assign(moving_variance, new_variance)
    return y


def layer_norm(
    inputs: Blob,
    center: bool = True,
    scale: bool = True,
    trainable: bool = True,
    begin_norm_axis: int = 1,
    begin_params_axis: int = -1,
    epsilon: float = 1e-5,
    name: str | None = None,
) -> Blob:
    """Layer normalization with variables ``<name>-beta`` (zeros) and ``<name>-gamma`` (ones)
    of shape ``inputs.shape[begin_params_axis:]``."""
    public = "flow.layers.layer_norm"
    check_name(public, name)
    name = layer_name(name, "LayerNorm")
    require_blob(public, inputs, "inputs", name)
    params_axis = norm_axis(public, begin_params_axis, inputs.ndim, name, "begin_params_axis")
    shape = inputs.shape[params_axis:]
    trainable = trainable and (center or scale)
    beta = gamma = None
    with namespace(name):
        if center:
            beta = get_variable(
                "beta",
                shape=shape,
                dtype=inputs.dtype,
                initializer=zeros_initializer(),
                trainable=trainable,
                model_name="beta",
                distribute=broadcast(),
                reuse=False,
            )
        if scale:
            gamma = get_variable(
                "gamma",
                shape=shape,
                dtype=inputs.dtype,
                initializer=ones_initializer(),
                trainable=trainable,
                model_name="gamma",
                distribute=broadcast(),
                reuse=False,
            )
    return _normalization.layer_norm(
        inputs, gamma, beta, begin_norm_axis, params_axis, epsilon, name=name
    )


def _check_eps(public: str, x: Blob, eps: float, name: str | None) -> None:
    if not x.dtype.is_floating:
        fail(public, f"needs a floating point input, got {x.dtype.name}", name)
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or eps < 0:
        fail(public, f"eps must be a non-negative float, got {eps!r}", name)


def _standardize(x: Blob, eps: float) -> Blob:
    """``(x - mean) / sqrt(var + eps)`` over the last axis of a 3-axis blob."""
    mean, variance = _normalization.moments(x, [2], keepdims=True)
    return (x - mean) / sqrt(variance + float(eps))


def _channel_affine(y: Blob, dtype: Any, name: str) -> Blob:
    """``gamma * y + beta`` for an ``(N, C, L)`` blob, with variables ``<name>_gamma`` (ones)
    and ``<name>_beta`` (zeros) of shape ``(1, C, 1)``: OneFlow's names and shapes, so
    checkpoints carry over."""
    shape = (1, y.shape[1], 1)
    gamma = get_variable(
        f"{name}_gamma", shape=shape, dtype=dtype, initializer=ones_initializer(), trainable=True
    )
    beta = get_variable(
        f"{name}_beta", shape=shape, dtype=dtype, initializer=zeros_initializer(), trainable=True
    )
    return gamma * y + beta


def group_norm(
    x: Blob, num_groups: int = 32, eps: float = 1e-5, affine: bool = True, name: str | None = None
) -> Blob:
    """OneFlow's ``flow.nn.GroupNorm``: normalizes each group of ``C / num_groups`` channels
    of an ``(N, C, ...)`` blob over its channels and positions; ``affine`` adds a per-channel
    scale and offset (variables ``<name>_gamma``/``_beta``, default name ``GroupNorm_<n>``)."""
    public = "flow.nn.GroupNorm"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    _check_eps(public, x, eps, name)
    if x.ndim < 3:
        fail(public, f"needs an (N, C, ...) input of at least 3 axes, got {x.shape}", name)
    if (
        isinstance(num_groups, bool)
        or not isinstance(num_groups, int)
        or num_groups < 1
        or x.shape[1] % num_groups
    ):
        fail(
            public,
            f"num_groups must be a positive divisor of the {x.shape[1]} channels, "
            f"got {num_groups!r}",
            name,
        )
    name = name if name is not None else current_graph().unique_name("GroupNorm")
    grouped = _standardize(reshape(x, (x.shape[0], num_groups, -1)), eps)
    out = reshape(grouped, (x.shape[0], x.shape[1], -1))
    if affine:
        out = _channel_affine(out, x.dtype, name)
    return reshape(out, x.shape)


def _instance_norm(ndim: int, x: Blob, eps: float, affine: bool, name: str | None) -> Blob:
    public = f"flow.nn.InstanceNorm{ndim}d"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if x.ndim != ndim + 2:
        fail(public, f"needs an (N, C{', *' * ndim}) input of {ndim + 2} axes, got {x.shape}", name)
    name = name if name is not None else current_graph().unique_name(f"InstanceNorm{ndim}D")
    _check_eps(public, x, eps, name)
    out = _standardize(x if ndim == 1 else reshape(x, (x.shape[0], x.shape[1], -1)), eps)
    if affine:
        out = _channel_affine(out, x.dtype, name)
    return out if ndim == 1 else reshape(out, x.shape)


def instance_norm1d(
    x: Blob, eps: float = 1e-5, affine: bool = True, name: str | None = None
) -> Blob:
    """OneFlow's ``flow.nn.InstanceNorm1d``: normalizes each (sample, channel) row of an
    ``(N, C, L)`` blob; ``affine`` adds variables ``<name>_gamma``/``_beta`` of shape
    ``(1, C, 1)`` (default name ``InstanceNorm1D_<n>``)."""
    return _instance_norm(1, x, eps, affine, name)


def instance_norm2d(
    x: Blob, eps: float = 1e-5, affine: bool = True, name: str | None = None
) -> Blob:
    """``flow.nn.InstanceNorm2d``: ``InstanceNorm1d`` over the ``H * W`` positions of an
    ``(N, C, H, W)`` blob (default name ``InstanceNorm2D_<n>``)."""
    return _instance_norm(2, x, eps, affine, name)


def instance_norm3d(
    x: Blob, eps: float = 1e-5, affine: bool = True, name: str | None = None
) -> Blob:
    """``flow.nn.InstanceNorm3d``: the same over the ``D * H * W`` positions of an
    ``(N, C, D, H, W)`` blob (default name ``InstanceNorm3D_<n>``)."""
    return _instance_norm(3, x, eps, affine, name)
