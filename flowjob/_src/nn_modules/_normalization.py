"""``nn.BatchNorm1d``, ``nn.BatchNorm2d`` and ``nn.LayerNorm`` of OneFlow v0.4.

Batch norm in training mode normalizes with the batch statistics and updates the buffers
``running_mean``/``running_var`` with OneFlow's momentum convention
(``running = momentum * running + (1 - momentum) * batch``, biased batch variance, as v0.4's
CPU path); in eval mode it uses the buffers. Weight starts at 1, bias at 0.
"""

from __future__ import annotations

from typing import Any

from .. import tensor_ops as F
from ..imperative import Module, Parameter, Tensor


class _BatchNorm(Module):
    _ranks: tuple[int, ...] = ()

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
    ) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(Tensor(num_features))
            self.bias = Parameter(Tensor(num_features))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", Tensor(num_features))
            self.register_buffer("running_var", Tensor(num_features))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.fill_(0)
            self.running_var.fill_(1)

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            self.weight.fill_(1)
            self.bias.fill_(0)

    def forward(self, x: Any) -> Any:
        if x.ndim not in self._ranks:
            want = " or ".join(f"{r}D" for r in self._ranks)
            raise ValueError(f"{type(self).__name__}: expected {want} input (got {x.ndim}D input)")
        if x.shape[1] != self.num_features:
            raise ValueError(
                f"{type(self).__name__}: expected {self.num_features} channels (axis 1), got "
                f"input of shape {tuple(x.shape)}"
            )
        return F.batch_norm(
            x,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            training=self.training or not self.track_running_stats,
            momentum=self.momentum,
            eps=self.eps,
        )

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, track_running_stats={self.track_running_stats}"
        )


class BatchNorm1d(_BatchNorm):
    """Batch normalization over axis 1 of ``(N, C)`` or ``(N, C, L)`` inputs.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> m = flow.nn.BatchNorm1d(2)
        >>> y = m(flow.Tensor([[1.0, 2.0], [3.0, 6.0]]))
        >>> assert np.allclose(y.numpy(), [[-1, -1], [1, 1]], atol=1e-4)
        >>> assert np.allclose(m.running_mean.numpy(), [1.8, 3.6])  # 0.1 * 0 + 0.9 * mean
    """

    _ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalization over the channels of NCHW inputs."""

    _ranks = (4,)


class LayerNorm(Module):
    """Normalizes over the last ``len(normalized_shape)`` axes, then (``elementwise_affine``)
    ``* weight + bias`` of shape ``normalized_shape``.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> y = flow.nn.LayerNorm(2)(flow.Tensor([[1.0, 3.0]]))
        >>> assert np.allclose(y.numpy(), [[-1.0, 1.0]], atol=1e-4)
    """

    def __init__(
        self, normalized_shape: Any, eps: float = 1e-5, elementwise_affine: bool = True
    ) -> None:
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.epsilon = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(Tensor(*self.normalized_shape))
            self.bias = Parameter(Tensor(*self.normalized_shape))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    @property
    def eps(self) -> float:
        return self.epsilon

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            self.weight.fill_(1)
            self.bias.fill_(0)

    def forward(self, x: Any) -> Any:
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.epsilon)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.epsilon}, "
            f"elementwise_affine={self.elementwise_affine}"
        )
