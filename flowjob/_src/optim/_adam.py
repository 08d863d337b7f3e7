"""``flow.optim.Adam``: OneFlow v0.4's eager Adam (the ``adam_update`` kernel with its ``l2``
term, no bias correction)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import optax

from ..optimizer import transforms as T
from ._optimizer import Optimizer, _at_least, _in_unit_interval

__all__ = ["Adam"]


class Adam(Optimizer):
    """Adam with the L2 penalty in the gradient, without bias correction (OneFlow v0.4).

    ``g = scale * grad + weight_decay * w; m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
    w -= lr * m / (sqrt(v) + eps)`` (states ``exp_avg``, ``exp_avg_sq``). For the decoupled
    decay see ``AdamW``.

    Args:
        parameters: an iterable of tensors, or of dicts ``{"params": [...], "lr": ...}``.
        lr: the learning rate.
        betas: ``(b1, b2)``, the decays of the two moments, each in [0, 1).
        eps: added to ``sqrt(v)`` in the denominator.
        weight_decay: the L2 penalty's factor, added to the gradient.
        amsgrad: must be False (OneFlow v0.4 has no AMSGrad).
        scale: the factor the gradients are multiplied by.

    Raises:
        ValueError: an option out of range, or ``amsgrad=True``.

    Examples:
        >>> import flowjob.experimental as flow
        >>> w = flow.nn.Parameter(flow.Tensor([1.0]))
        >>> opt = flow.optim.Adam([w], lr=0.1)
        >>> (w * 3.0).sum().backward()
        >>> opt.step()  # m = 0.3, v = 0.009: the step is lr * 0.3 / sqrt(0.009) ~ 0.316
        >>> round(float(w.numpy()[0]), 3)
        0.684
    """

    _name = "Adam"
    _slot_names = {"m": "exp_avg", "v": "exp_avg_sq"}

    def __init__(
        self,
        parameters: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        scale: float = 1.0,
    ):
        options = {
            "lr": lr,
            "eps": eps,
            "betas": betas,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "scale": scale,
        }
        super().__init__(parameters, options)

    def _check(self, options: Mapping[str, Any]) -> None:
        for name in ("lr", "eps", "weight_decay"):
            _at_least(options, name, 0.0, self._name)
        betas = options["betas"]
        if len(tuple(betas)) != 2:
            raise ValueError(f"{self._name}: betas must be (beta1, beta2), got {betas!r}")
        for i, beta in enumerate(betas):
            _in_unit_interval(beta, f"betas[{i}]", self._name)
        if not float(options["scale"]) > 0.0:
            raise ValueError(f"{self._name}: scale must be > 0, got {options['scale']}")
        if options["amsgrad"]:
            raise ValueError(f"{self._name}: amsgrad=True is not supported (as in OneFlow v0.4)")

    @classmethod
    def _hyper(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        beta1, beta2 = options["betas"]
        return {
            "lr": options["lr"],
            "scale": options["scale"],
            "beta1": beta1,
            "beta2": beta2,
            "eps": options["eps"],
            "weight_decay": options["weight_decay"],
        }

    @classmethod
    def _chain(cls, hyper: Mapping[str, Any]) -> optax.GradientTransformation:
        return optax.chain(
            optax.scale(hyper["scale"]),
            optax.add_decayed_weights(hyper["weight_decay"]),  # the kernel's l2 * w
            T.adam_direction(hyper["beta1"], hyper["beta2"], hyper["eps"]),
            T.scale_by_learning_rate(),
        )
