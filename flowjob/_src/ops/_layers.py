"""``flow.layers`` that create their own weights: ``dense`` and ``prelu`` (a learned leaky
slope), and what the weight layers share. The convolution layers are in ``_conv_layers``.

The normalization layers are in ``_norm_layers``; the ops they call take the weights as
arguments (``_linalg``, ``_normalization``; ``_convolution`` for the convolution layers).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax.numpy as jnp

from ..graph import Blob, Distribute, apply_op, broadcast, get_variable, namespace
from ._linalg import bias_add, matmul
from ._shape import reshape
from ._util import check_name, fail, layer_name, require_blob
from .initializers import constant_initializer, zeros_initializer

Activation = Callable[..., Blob]


def or_default(initializer: Any, default: Callable[[], Any]) -> Any:
    return default() if initializer is None else initializer


def _distribute_kind(d: Any) -> str:
    if not isinstance(d, Distribute):
        fail(
            "flow.layers.dense",
            f"model_distribute must be flow.distribute.auto(), broadcast() or split(0), got {d!r}",
        )
    if d.kind == "split" and d.axis != 0:
        fail("flow.layers.dense", f"model_distribute split axis must be 0, got {d!r}")
    return d.kind


def dense(
    inputs: Blob,
    units: int,
    activation: Activation | None = None,
    use_bias: bool = True,
    kernel_initializer: Any = None,
    bias_initializer: Any = None,
    kernel_regularizer: Any = None,
    bias_regularizer: Any = None,
    trainable: bool = True,
    name: str | None = None,
    model_distribute: Distribute | None = None,
) -> Blob:
    """Fully connected layer ``x @ W.T + b`` (``flow.layers.dense``).

    Variables ``<name>-weight`` of shape ``(units, in_features)`` and ``<name>-bias`` default to
    zeros (as OneFlow). Inputs of rank > 2 are flattened to ``(-1, in_features)`` and the result
    reshaped back. ``activation`` is called as ``activation(out, name="activation")``.

    Args:
        inputs: a blob of rank >= 2; its last axis holds the features.
        units: the number of outputs (a positive int).
        activation: an op applied to the result, such as ``flow.nn.relu``.
        use_bias: add the bias variable.
        kernel_initializer: initializer of the weight (default: zeros, as OneFlow).
        bias_initializer: initializer of the bias (default: zeros).
        kernel_regularizer: a regularizer whose loss is added for the weight.
        bias_regularizer: a regularizer whose loss is added for the bias.
        trainable: whether a train job updates the variables.
        name: the layer's name, the prefix of its variables (default: generated).
        model_distribute: ``flow.distribute.split(0)`` splits the weight among devices.

    Returns:
        A blob of shape ``inputs.shape[:-1] + (units,)``.

    Raises:
        OpError: ``inputs`` has rank < 2 or ``units`` is not a positive int.

    Examples:
        >>> import numpy as np, flowjob as flow, flowjob.typing as tp
        >>> @flow.global_function()
        ... def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        ...     return flow.layers.dense(x, 4, kernel_initializer=flow.ones_initializer(),
        ...                              name="fc")
        >>> job(np.ones((2, 3), np.float32))
        array([[3., 3., 3., 3.],
               [3., 3., 3., 3.]], dtype=float32)
        >>> flow.get_all_variables()["fc-weight"].numpy().shape
        (4, 3)
    """
    public = "flow.layers.dense"
    check_name(public, name)
    name = layer_name(name, "Dense")
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
            "weight",
            shape=(units, in_shape[-1]),
            dtype=inputs.dtype,
            initializer=or_default(kernel_initializer, zeros_initializer),
            regularizer=kernel_regularizer,
            trainable=trainable,
            model_name="weight",
            distribute=distribute,
            reuse=False,
        )
        if kind != "broadcast":
            weight = weight.with_distribute(distribute)
        out = matmul(x, weight, transpose_b=True, name="matmul")
        if use_bias:
            bias = get_variable(
                "bias",
                shape=(units,),
                dtype=inputs.dtype,
                initializer=or_default(bias_initializer, zeros_initializer),
                regularizer=bias_regularizer,
                trainable=trainable,
                model_name="bias",
                distribute=distribute,
                reuse=False,
            )
            if kind != "broadcast":
                bias = bias.with_distribute(distribute)
            out = bias_add(out, bias, name="bias_add")
        if callable(activation):
            out = activation(out, name="activation")
    if len(in_shape) > 2:
        out = reshape(out, in_shape[:-1] + (units,))
    return out


def _lower_prelu(x, alpha):
    return jnp.where(x > 0, x, x * alpha)


def prelu(
    inputs: Blob,
    alpha_initializer: Any = None,
    alpha_regularizer: Any = None,
    shared_axes: Sequence[int] | None = None,
    trainable: bool = True,
    name: str | None = None,
    model_distribute: Any = None,
) -> Blob:
    """``x`` where positive, ``alpha * x`` elsewhere; the variable ``<name>-alpha`` has shape
    ``inputs.shape[1:]`` with size 1 on ``shared_axes`` (initialized to 0 by default)."""
    public = "flow.layers.prelu"
    check_name(public, name)
    name = layer_name(name, "PRelu")
    require_blob(public, inputs, "inputs", name)
    shape = list(inputs.shape[1:])
    for axis in shared_axes or ():
        if not isinstance(axis, int) or not 1 <= axis < inputs.ndim:
            fail(
                public,
                f"shared_axes entries must be ints in [1, {inputs.ndim}), got {shared_axes!r}",
                name,
            )
        shape[axis - 1] = 1
    with namespace(name):
        alpha = get_variable(
            "alpha",
            shape=tuple(shape),
            dtype=inputs.dtype,
            initializer=alpha_initializer or constant_initializer(0),
            regularizer=alpha_regularizer,
            trainable=trainable,
            distribute=model_distribute or broadcast(),
            reuse=False,
        )
    return apply_op("prelu", _lower_prelu, [inputs, alpha], name=name)
