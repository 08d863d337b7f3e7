"""``flow.optim.SGD``: OneFlow v0.4's eager SGD (the ``sgd_update`` and ``momentum_update``
kernels)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import optax

from ..optimizer import transforms as T
from ._optimizer import Optimizer, _at_least

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent, with momentum when ``momentum > 0``.

    With ``g = scale * grad``: ``momentum == 0`` updates ``w -= lr * g``; otherwise
    ``v = momentum * v - lr * g; w += v`` (state ``momentum_buf``), as OneFlow's
    ``momentum_update`` kernel (the rate inside the velocity).

    Args:
        parameters: an iterable of tensors, or of dicts ``{"params": [...], "lr": ...}`` (one
            parameter group each, with its own options).
        lr: the learning rate.
        momentum: the momentum factor (0: plain SGD).
        scale: the factor the gradients are multiplied by (the loss scale's inverse).

    Raises:
        ValueError: an option out of range (``lr``, ``momentum`` or ``scale`` below 0).

    Examples:
        >>> import flowjob.experimental as flow
        >>> w = flow.nn.Parameter(flow.Tensor([1.0]))
        >>> opt = flow.optim.SGD([w], lr=0.1, momentum=0.9)
        >>> for _ in range(2):
        ...     (w * 2.0).sum().backward()
        ...     opt.step()
        ...     opt.zero_grad()
        >>> round(float(w.numpy()[0]), 4)  # v1 = -0.2, v2 = 0.9 * v1 - 0.2
        0.42
    """

    _name = "SGD"
    _slot_names = {"momentum": "momentum_buf"}

    def __init__(
        self, parameters: Any, lr: float = 1e-3, momentum: float = 0.0, scale: float = 1.0
    ):
        super().__init__(parameters, {"lr": lr, "momentum": momentum, "scale": scale})

    def _check(self, options: Mapping[str, Any]) -> None:
        for name in ("lr", "momentum", "scale"):
            _at_least(options, name, 0.0, self._name)

    @classmethod
    def _flags(cls, options: Mapping[str, Any]) -> tuple:
        return (float(options["momentum"]) != 0.0,)

    @classmethod
    def _hyper(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        return {k: options[k] for k in ("lr", "momentum", "scale")}

    @classmethod
    def _chain(cls, hyper: Mapping[str, Any], with_momentum: bool) -> optax.GradientTransformation:
        if with_momentum:
            return optax.chain(optax.scale(hyper["scale"]), T.momentum_descent(hyper["momentum"]))
        return optax.chain(optax.scale(hyper["scale"]), T.scale_by_learning_rate())
