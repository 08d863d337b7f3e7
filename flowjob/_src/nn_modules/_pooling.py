"""``nn.AvgPool2d`` and ``nn.MaxPool2d`` of OneFlow v0.4 (NCHW; ``stride`` defaults to the
kernel size). The settings v0.4 rejected are rejected here too, by name."""

from __future__ import annotations

from typing import Any

from .. import tensor_ops as F
from ..imperative import Module
from ._util import pair


class AvgPool2d(Module):
    """The mean of each window.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> y = flow.nn.AvgPool2d(2)(flow.Tensor(np.arange(16.0).reshape(1, 1, 4, 4)))
        >>> assert np.allclose(y.numpy(), [[[[2.5, 4.5], [10.5, 12.5]]]])
    """

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool | None = None,
        divisor_override: int | None = None,
        name: str | None = None,
    ):
        super().__init__()
        if count_include_pad is not None:
            raise ValueError("AvgPool2d: count_include_pad is not supported (as in OneFlow v0.4)")
        if divisor_override is not None:
            raise ValueError("AvgPool2d: divisor_override is not supported (as in OneFlow v0.4)")
        self.kernel_size = pair(kernel_size)
        self.stride = self.kernel_size if stride is None else pair(stride)
        self.padding = pair(padding)
        self.ceil_mode = ceil_mode

    def forward(self, x: Any) -> Any:
        return F.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxPool2d(Module):
    """The maximum of each window (``dilation`` 1 and no ``return_indices``, as v0.4)."""

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ):
        super().__init__()
        if return_indices:
            raise ValueError("MaxPool2d: return_indices=True is not supported (as in OneFlow v0.4)")
        if pair(dilation) != (1, 1):
            raise ValueError(f"MaxPool2d: only dilation 1 is supported, got {dilation!r}")
        self.kernel_size = pair(kernel_size)
        self.stride = self.kernel_size if stride is None else pair(stride)
        self.padding = pair(padding)
        self.dilation = dilation
        self.ceil_mode = ceil_mode

    def forward(self, x: Any) -> Any:
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"
