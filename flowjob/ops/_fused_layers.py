"""``flow.layers.batch_normalization_relu`` and ``batch_normalization_add_relu``.

OneFlow fuses these into one kernel on GPU; its fallback (and flowjob) is the batch
normalization layer, then ``+ addend`` and relu in namespace ``BatchNormAddRelu``. The
variables are the batch normalization layer's, so checkpoints are interchangeable.
"""

from __future__ import annotations

from typing import Any

from ..graph import Blob, namespace
from . import _layers
from ._unary import relu
from ._util import fail, require_blob


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
    out = _layers.batch_normalization(
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
