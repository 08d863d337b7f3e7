"""Activations on tensors: ``relu``, ``relu6``, ``tanh``, ``elu``, ``gelu``, ``sigmoid``,
``hardsigmoid``, ``hardswish``, ``hardtanh``, ``leaky_relu``, ``softmax``, ``log_softmax``,
``logsigmoid``, ``softplus`` and ``prelu``, the functions behind OneFlow v0.4's activation
modules (``flow.nn.ReLU``...). ``tanh``, ``gelu``, ``sigmoid`` and ``softmax`` are also
``flow.experimental`` functions and ``Tensor`` methods, as v0.4 published them.

Each is one body of flowjob's activation ops (``ops.nn``/``ops.math``) run by ``apply``, so
the kinks' gradients are those of OneFlow's kernels (see ``ops._activations``).
"""

from __future__ import annotations

from typing import Any

from .. import ops
from ..graph import Blob
from ..imperative import apply

_SIMPLE = {
    "relu": ops.nn.relu,
    "relu6": ops.nn.relu6,
    "tanh": ops.math.tanh,
    "gelu": ops.math.gelu,
    "sigmoid": ops.math.sigmoid,
    "hardsigmoid": ops.nn.hardsigmoid,
    "hardswish": ops.nn.hardswish,
    "logsigmoid": ops.math.log_sigmoid,
}


def _simple_body(x: Blob, *, kind: str) -> Blob:
    return _SIMPLE[kind](x)


def _simple(kind: str, x: Any) -> Any:
    return apply(kind, _simple_body, x, kind=kind)


def relu(x: Any) -> Any:
    """``max(x, 0)`` elementwise.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> from flowjob._src.tensor_ops import relu
        >>> assert np.allclose(relu(flow.Tensor([-1.0, 2.0])).numpy(), [0.0, 2.0])
    """
    return _simple("relu", x)


def relu6(x: Any) -> Any:
    """``min(max(x, 0), 6)`` elementwise."""
    return _simple("relu6", x)


def tanh(x: Any) -> Any:
    """The hyperbolic tangent, elementwise (``flow.experimental.tanh``, ``Tensor.tanh``).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> assert np.allclose(flow.tanh(flow.Tensor([0.5])).numpy(), np.tanh(0.5))
    """
    return _simple("tanh", x)


def gelu(x: Any) -> Any:
    """``0.5 * x * (1 + erf(x / sqrt(2)))`` elementwise (``flow.experimental.gelu``).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> assert np.allclose(flow.gelu(flow.Tensor([0.0, 1.0])).numpy(), [0.0, 0.8413447])
    """
    return _simple("gelu", x)


def sigmoid(x: Any) -> Any:
    """``1 / (1 + exp(-x))`` elementwise (``flow.experimental.sigmoid``, ``Tensor.sigmoid``).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> assert np.allclose(flow.sigmoid(flow.Tensor([0.0])).numpy(), [0.5])
    """
    return _simple("sigmoid", x)


def hardsigmoid(x: Any) -> Any:
    """0 below -3, 1 above 3, ``x / 6 + 1/2`` between."""
    return _simple("hardsigmoid", x)


def hardswish(x: Any) -> Any:
    """0 below -3, ``x`` above 3, ``x * (x + 3) / 6`` between."""
    return _simple("hardswish", x)


def logsigmoid(x: Any) -> Any:
    """``log(sigmoid(x))``, computed stably."""
    return _simple("logsigmoid", x)


def _elu_body(x: Blob, *, alpha: float) -> Blob:
    return ops.nn.elu(x, alpha=alpha)


def elu(x: Any, alpha: float = 1.0) -> Any:
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere."""
    return apply("elu", _elu_body, x, alpha=float(alpha))


def _hardtanh_body(x: Blob, *, min_val: float, max_val: float) -> Blob:
    return ops.nn.hardtanh(x, min_val=min_val, max_val=max_val)


def hardtanh(x: Any, min_val: float = -1.0, max_val: float = 1.0) -> Any:
    """``x`` clipped to ``[min_val, max_val]`` (the gradient passes strictly inside)."""
    if not float(min_val) < float(max_val):
        raise ValueError(f"hardtanh: min_val ({min_val}) must be smaller than max_val ({max_val})")
    return apply("hardtanh", _hardtanh_body, x, min_val=float(min_val), max_val=float(max_val))


def _leaky_relu_body(x: Blob, *, negative_slope: float) -> Blob:
    return ops.nn.leaky_relu(x, alpha=negative_slope)


def leaky_relu(x: Any, negative_slope: float = 0.01) -> Any:
    """``x`` where positive, ``negative_slope * x`` elsewhere."""
    return apply("leaky_relu", _leaky_relu_body, x, negative_slope=float(negative_slope))


def _softmax_body(x: Blob, *, dim: int, log: bool) -> Blob:
    return ops.nn.log_softmax(x, axis=dim) if log else ops.nn.softmax(x, axis=dim)


def _dim(who: str, x: Any, dim: Any) -> int:
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"{who}: dim must be an int, got {dim!r}")
    if not -x.ndim <= dim < x.ndim:
        raise IndexError(f"{who}: dim {dim} is out of range for a tensor of rank {x.ndim}")
    return dim % x.ndim


def softmax(tensor: Any, dim: int | None = None) -> Any:
    """``exp(tensor) / sum(exp(tensor))`` along ``dim`` (the last axis when ``None``, as
    OneFlow v0.4).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> y = flow.softmax(flow.Tensor([[1.0, 1.0]]), dim=1)
        >>> assert np.allclose(y.numpy(), [[0.5, 0.5]])
    """
    dim = _dim("softmax", tensor, -1 if dim is None else dim)
    return apply("softmax", _softmax_body, tensor, dim=dim, log=False)


def log_softmax(x: Any, dim: int = 1) -> Any:
    """``log(softmax(x))`` along ``dim`` (default 1, as ``nn.LogSoftmax``), computed stably."""
    dim = _dim("log_softmax", x, -1 if dim is None else dim)
    return apply("log_softmax", _softmax_body, x, dim=dim, log=True)


def _softplus_body(x: Blob, *, beta: float, threshold: float) -> Blob:
    scaled = ops.math.multiply(x, beta)
    soft = ops.math.divide(ops.math.softplus(scaled), beta)
    return ops.array_ops.where(ops.math.greater(scaled, threshold), x, soft)


def softplus(x: Any, beta: float = 1.0, threshold: float = 20.0) -> Any:
    """``log(1 + exp(beta * x)) / beta``, and ``x`` itself where ``beta * x > threshold``."""
    return apply("softplus", _softplus_body, x, beta=float(beta), threshold=float(threshold))


def _prelu_body(x: Blob, weight: Blob) -> Blob:
    return ops.array_ops.where(ops.math.greater(x, 0.0), x, ops.math.multiply(x, weight))


def prelu(x: Any, weight: Any) -> Any:
    """``x`` where positive, ``weight * x`` elsewhere; ``weight`` broadcasts against ``x``
    (``nn.PReLU``'s is ``(num_parameters, 1, 1)``: one slope per channel of NCHW)."""
    return apply("prelu", _prelu_body, x, weight)


METHODS = {"tanh": tanh, "gelu": gelu, "sigmoid": sigmoid, "softmax": softmax}
