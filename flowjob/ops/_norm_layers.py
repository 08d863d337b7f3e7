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
from ._util import check_name, fail, layer_name, norm_axis, require_blob
from .initializers import ones_initializer, zeros_initializer


def batch_normalization_add_relu(
        inputs: Blob, addend: Blob | None = None, axis: int = -1, momentum: float = 0.99,
        epsilon: float = 0.001, center: bool = True, scale: bool = True,
        beta_initializer: Any = None, gamma_initializer: Any = None,
        beta_regularizer: Any = None, gamma_regularizer: Any = None,
        moving_mean_initializer: Any = None, moving_variance_initializer: Any = None,
        trainable: bool = True, training: bool = True, name: str | None = None,
        gamma_name: str | None = None, beta_name: str | None = None,
        moving_mean_name: str | None = None, moving_variance_name: str | None = None) -> Blob:
    """``relu(batch_normalization(inputs) + addend)``; ``addend`` has the inputs' shape."""
    public = "flow.layers.batch_normalization_add_relu"
    if addend is not None:
        require_blob(public, addend, "addend", name)
        require_blob(public, inputs, "inputs", name)
        if addend.shape != inputs.shape:
            fail(public, f"addend {addend.shape} must have the shape of inputs {inputs.shape}",
                 name)
    out = batch_normalization(
        inputs, axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
        beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
        beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
        moving_mean_initializer=moving_mean_initializer,
        moving_variance_initializer=moving_variance_initializer, trainable=trainable,
        training=training, name=name, gamma_name=gamma_name, beta_name=beta_name,
        moving_mean_name=moving_mean_name, moving_variance_name=moving_variance_name)
    with namespace("BatchNormAddRelu"):
        if addend is not None:
            out = out + addend
        return relu(out)


def batch_normalization_relu(
        inputs: Blob, axis: int = -1, momentum: float = 0.99, epsilon: float = 0.001,
        center: bool = True, scale: bool = True, beta_initializer: Any = None,
        gamma_initializer: Any = None, beta_regularizer: Any = None,
        gamma_regularizer: Any = None, moving_mean_initializer: Any = None,
        moving_variance_initializer: Any = None, trainable: bool = True, training: bool = True,
        name: str | None = None) -> Blob:
    """``relu(batch_normalization(inputs))``."""
    return batch_normalization_add_relu(
        inputs, None, axis, momentum, epsilon, center, scale, beta_initializer,
        gamma_initializer, beta_regularizer, gamma_regularizer, moving_mean_initializer,
        moving_variance_initializer, trainable, training, name)


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
    name = layer_name(name, "BatchNorm")
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
        kwargs = dict(shape=params_shape, dtype=params_dtype, initializer=or_default(init, default),
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
    name = layer_name(name, "LayerNorm")
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
