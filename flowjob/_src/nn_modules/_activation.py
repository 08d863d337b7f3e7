"""Activation layers of OneFlow v0.4 (``nn.ReLU``, ``nn.Softmax``, ``nn.PReLU``...): each
``forward`` is the ``tensor_ops`` function of the same name, with the constructor's settings.
``inplace`` is accepted and ignored, as v0.4 did."""

from __future__ import annotations

import warnings
from typing import Any

from .. import tensor_ops as F
from ..imperative import Module, Parameter, Tensor


class ReLU(Module):
    """``max(x, 0)``.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> y = flow.nn.ReLU()(flow.Tensor([-1.0, 2.0]))
        >>> assert np.allclose(y.numpy(), [0.0, 2.0])
    """

    def __init__(self, inplace: bool = False):
        super().__init__()

    def forward(self, x: Any) -> Any:
        return F.relu(x)


class ReLU6(Module):
    """``min(max(x, 0), 6)``."""

    def __init__(self, inplace: bool = False):
        super().__init__()

    def forward(self, x: Any) -> Any:
        return F.relu6(x)


class Tanh(Module):
    """The hyperbolic tangent."""

    def forward(self, x: Any) -> Any:
        return F.tanh(x)


class ELU(Module):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        self.alpha = alpha

    def forward(self, x: Any) -> Any:
        return F.elu(x, self.alpha)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}"


class GELU(Module):
    """``0.5 * x * (1 + erf(x / sqrt(2)))``."""

    def forward(self, x: Any) -> Any:
        return F.gelu(x)


class Sigmoid(Module):
    """``1 / (1 + exp(-x))``."""

    def forward(self, x: Any) -> Any:
        return F.sigmoid(x)


class Hardsigmoid(Module):
    """0 below -3, 1 above 3, ``x / 6 + 1/2`` between."""

    def __init__(self, inplace: bool = False):
        super().__init__()

    def forward(self, x: Any) -> Any:
        return F.hardsigmoid(x)


class Hardswish(Module):
    """0 below -3, ``x`` above 3, ``x * (x + 3) / 6`` between."""

    def __init__(self, inplace: bool = False):
        super().__init__()

    def forward(self, x: Any) -> Any:
        return F.hardswish(x)


class Softmax(Module):
    """Softmax along ``dim`` (the last axis when ``None``, as v0.4).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> y = flow.nn.Softmax(dim=0)(flow.Tensor([[1.0], [1.0]]))
        >>> assert np.allclose(y.numpy(), [[0.5], [0.5]])
    """

    def __init__(self, dim: int | None = None):
        super().__init__()
        self.axis = -1 if dim is None else dim

    def forward(self, x: Any) -> Any:
        return F.softmax(x, self.axis)

    def extra_repr(self) -> str:
        return f"dim={self.axis}"


class LogSoftmax(Module):
    """``log(softmax(x))`` along ``dim`` (default 1), computed stably."""

    def __init__(self, dim: int | None = 1):
        super().__init__()
        self.dim = dim

    def forward(self, x: Any) -> Any:
        return F.log_softmax(x, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSigmoid(Module):
    """``log(sigmoid(x))``."""

    def forward(self, x: Any) -> Any:
        return F.logsigmoid(x)


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta``, linear (``x``) where ``beta * x > threshold``."""

    def __init__(self, beta: float = 1, threshold: float = 20):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, x: Any) -> Any:
        return F.softplus(x, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    """``x`` clipped to ``[min_val, max_val]`` (``min_value``/``max_value`` are the deprecated
    spellings v0.4 still took, with a warning)."""

    def __init__(
        self,
        min_val: float = -1,
        max_val: float = 1,
        inplace: bool = False,
        min_value: float | None = None,
        max_value: float | None = None,
    ):
        super().__init__()
        if min_value is not None:
            warnings.warn("Hardtanh: min_value is deprecated, use min_val", stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("Hardtanh: max_value is deprecated, use max_val", stacklevel=2)
            max_val = max_value
        if not float(min_val) < float(max_val):
            raise ValueError(f"Hardtanh: min_val ({min_val}) must be below max_val ({max_val})")
        self.min_val = min_val
        self.max_val = max_val

    def forward(self, x: Any) -> Any:
        return F.hardtanh(x, self.min_val, self.max_val)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}"


class LeakyReLU(Module):
    """``x`` where positive, ``negative_slope * x`` elsewhere."""

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x: Any) -> Any:
        return F.leaky_relu(x, self.negative_slope)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}"


class PReLU(Module):
    """``x`` where positive, ``weight * x`` elsewhere, with a learned ``weight`` of shape
    ``(num_parameters, 1, 1)`` filled with ``init``: one slope for all channels, or one per
    channel (axis 1) of an NCHW input.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> y = flow.nn.PReLU()(flow.Tensor(np.full((1, 1, 1, 2), -4.0)))
        >>> assert np.allclose(y.numpy(), -1.0)
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.weight = Parameter(Tensor(num_parameters, 1, 1).fill_(init))

    def forward(self, x: Any) -> Any:
        if self.num_parameters != 1 and (x.ndim < 2 or x.shape[1] != self.num_parameters):
            raise ValueError(
                f"PReLU: num_parameters ({self.num_parameters}) must be 1 or the input's "
                f"channels (axis 1 of shape {tuple(x.shape)})"
            )
        return F.prelu(x, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"
