"""``flow.optim.RMSprop``: OneFlow v0.4's eager RMSprop (the ``rmsprop_update`` kernel)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import optax

from ..optimizer import transforms as T
from ._optimizer import Optimizer, _at_least

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop, plain or centered, without momentum (OneFlow v0.4).

    ``g = scale * grad; s = alpha s + (1 - alpha) g^2; w -= lr * g / sqrt(s + eps)`` (state
    ``square_avg``); ``centered`` also keeps ``a = alpha a + (1 - alpha) g`` (``grad_avg``) and
    divides by ``sqrt(s - a^2 + eps)``. As OneFlow v0.4's kernel, ``weight_decay`` is accepted
    and has no effect (with a warning).

    Args:
        parameters: an iterable of tensors, or of dicts ``{"params": [...], "lr": ...}``.
        lr: the learning rate.
        alpha: the smoothing constant of the averages.
        eps: added to the mean square under the square root.
        weight_decay: accepted, unused (OneFlow v0.4's kernel ignores it).
        momentum: must be 0 (OneFlow v0.4 has no RMSprop momentum).
        centered: divide by the estimated variance instead of the mean square.
        scale: the factor the gradients are multiplied by.

    Raises:
        ValueError: an option out of range, or ``momentum != 0``.

    Examples:
        >>> import flowjob.experimental as flow
        >>> w = flow.nn.Parameter(flow.Tensor([1.0]))
        >>> opt = flow.optim.RMSprop([w], lr=0.1, alpha=0.9, eps=0.0)
        >>> (w * 2.0).sum().backward()
        >>> opt.step()  # s = 0.1 * 4: the step is 0.1 * 2 / sqrt(0.4) ~ 0.316
        >>> round(float(w.numpy()[0]), 3)
        0.684
    """

    _name = "RMSprop"
    _slot_names = {"mean_square": "square_avg", "mean_gradient": "grad_avg"}

    def __init__(
        self,
        parameters: Any,
        lr: float = 1e-3,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0.0,
        centered: bool = False,
        scale: float = 1.0,
    ):
        options = {
            "lr": lr,
            "alpha": alpha,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum": momentum,
            "centered": centered,
            "scale": scale,
        }
        super().__init__(parameters, options)

    def _check(self, options: Mapping[str, Any]) -> None:
        for name in ("lr", "alpha", "eps", "weight_decay"):
            _at_least(options, name, 0.0, self._name)
        if not float(options["scale"]) > 0.0:
            raise ValueError(f"{self._name}: scale must be > 0, got {options['scale']}")
        if float(options["momentum"]) != 0.0:
            raise ValueError(
                f"{self._name}: momentum must be 0 (OneFlow v0.4 has no RMSprop momentum), "
                f"got {options['momentum']}"
            )
        if float(options["weight_decay"]) != 0.0:
            warnings.warn(
                "RMSprop: weight_decay has no effect, as in OneFlow v0.4 (its rmsprop_update "
                "kernel takes no weight decay)",
                stacklevel=4,
            )

    @classmethod
    def _flags(cls, options: Mapping[str, Any]) -> tuple:
        return (bool(options["centered"]),)

    @classmethod
    def _hyper(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        return {k: options[k] for k in ("lr", "alpha", "eps", "scale")}

    @classmethod
    def _chain(cls, hyper: Mapping[str, Any], centered: bool) -> optax.GradientTransformation:
        return optax.chain(
            optax.scale(hyper["scale"]),
            T.rmsprop_descent(hyper["alpha"], hyper["eps"], centered),
        )
