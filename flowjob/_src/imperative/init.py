"""``flow.nn.init``: fill a tensor in place (each function returns the tensor).

The formulas are PyTorch's (OneFlow v0.4 used the same): xavier bounds from
``gain * sqrt(6 / (fan_in + fan_out))``, kaiming std ``calculate_gain(nonlinearity, a) /
sqrt(fan)``; fans as in ``flow.nn.init``'s OneFlow docs, the channels of a convolution weight
found by ``data_format``.
"""

from __future__ import annotations

from ._gain import calculate_gain
from ._tensor import Tensor

__all__ = [
    "calculate_gain",
    "constant_",
    "kaiming_normal_",
    "kaiming_uniform_",
    "normal_",
    "ones_",
    "uniform_",
    "xavier_normal_",
    "xavier_uniform_",
    "zeros_",
]


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0) -> Tensor:
    return tensor.uniform_(a, b)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0) -> Tensor:
    return tensor.normal_(mean, std)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, *, data_format: str = "NCHW") -> Tensor:
    return tensor.xavier_uniform_(gain, data_format=data_format)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, *, data_format: str = "NCHW") -> Tensor:
    return tensor.xavier_normal_(gain, data_format=data_format)


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    *,
    data_format: str = "NCHW",
) -> Tensor:
    return tensor.kaiming_uniform_(a, mode, nonlinearity, data_format=data_format)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    *,
    data_format: str = "NCHW",
) -> Tensor:
    return tensor.kaiming_normal_(a, mode, nonlinearity, data_format=data_format)


def constant_(tensor: Tensor, val: float) -> Tensor:
    return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    return tensor.fill_(1)


def zeros_(tensor: Tensor) -> Tensor:
    return tensor.fill_(0)
