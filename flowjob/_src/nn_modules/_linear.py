"""``nn.Identity``, ``nn.Linear`` and ``nn.Conv2d``: the weight layers of OneFlow v0.4, with
its (PyTorch's) weight layouts and initial draws: weights from ``kaiming_uniform_`` with
``a = sqrt(5)`` (U(-b, b), ``b = 1 / sqrt(fan_in)``), biases from U(-b, b) with the same
``b``."""

from __future__ import annotations

import math
from typing import Any

from .. import tensor_ops as F
from ..imperative import Module, Parameter, Tensor
from ..imperative._gain import fans
from ._util import pair


def _reset(module: Module) -> None:
    module.weight.kaiming_uniform_(a=math.sqrt(5))
    if module.bias is not None:
        fan_in, _ = fans(type(module).__name__, module.weight.shape, "NCHW")
        bound = 1 / math.sqrt(fan_in)
        module.bias.uniform_(-bound, bound)


class Identity(Module):
    """Returns its input (any constructor arguments are ignored)."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__()

    def forward(self, x: Any) -> Any:
        return x


class Linear(Module):
    """``y = x @ weight.T + bias`` with ``weight`` ``(out_features, in_features)`` and
    ``bias`` ``(out_features,)``; ``x`` has rank >= 2 and ``in_features`` last.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> m = flow.nn.Linear(3, 2)
        >>> assert tuple(m.weight.shape) == (2, 3) and np.abs(m.weight.numpy()).max() <= 3**-0.5
        >>> assert tuple(m(flow.Tensor(np.ones((4, 3)))).shape) == (4, 2)
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.use_bias = bias
        self.weight = Parameter(Tensor(out_features, in_features))
        self.bias = Parameter(Tensor(out_features)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset(self)

    def forward(self, x: Any) -> Any:
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class Conv2d(Module):
    """2-D convolution of NCHW inputs: ``weight`` ``(out_channels, in_channels // groups,
    kh, kw)``, ``bias`` ``(out_channels,)``; zero ``padding`` on both sides (only
    ``padding_mode="zeros"``, as v0.4)."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
    ):
        super().__init__()
        if padding_mode != "zeros":
            raise ValueError(
                f"Conv2d: only padding_mode='zeros' is supported, got {padding_mode!r}"
            )
        if in_channels % groups or out_channels % groups:
            raise ValueError(
                f"Conv2d: groups ({groups}) must divide in_channels ({in_channels}) and "
                f"out_channels ({out_channels})"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = pair(kernel_size)
        self.stride = pair(stride)
        self.padding = pair(padding)
        self.dilation = pair(dilation)
        self.groups = groups
        self.weight = Parameter(Tensor(out_channels, in_channels // groups, *self.kernel_size))
        self.bias = Parameter(Tensor(out_channels)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset(self)

    def forward(self, x: Any) -> Any:
        return F.conv2d(
            x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups
        )

    def extra_repr(self) -> str:
        return (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, padding={self.padding}, dilation={self.dilation}, "
            f"groups={self.groups}, bias={self.bias is not None}"
        )
