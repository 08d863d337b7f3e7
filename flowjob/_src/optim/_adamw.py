"""``flow.optim.AdamW``: OneFlow v0.4's eager AdamW (the ``adam_update`` kernel with its
decoupled ``weight_decay``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import optax

from ..optimizer import transforms as T
from ._adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """Adam with decoupled weight decay, without bias correction (OneFlow v0.4).

    ``g = scale * grad; m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
    w -= lr * (m / (sqrt(v) + eps) + weight_decay * w)`` (states ``exp_avg``, ``exp_avg_sq``).
    Same arguments as ``Adam``; ``weight_decay`` here is the decoupled decay.

    Args:
        parameters: an iterable of tensors, or of dicts ``{"params": [...], "lr": ...}``.
        lr: the learning rate.
        betas: ``(b1, b2)``, the decays of the two moments, each in [0, 1).
        eps: added to ``sqrt(v)`` in the denominator.
        weight_decay: the decoupled decay ``lambda`` (``w -= lr * lambda * w`` each step).
        amsgrad: must be False (OneFlow v0.4 has no AMSGrad).
        scale: the factor the gradients are multiplied by.

    Raises:
        ValueError: an option out of range, or ``amsgrad=True``.

    Examples:
        >>> import flowjob.experimental as flow
        >>> w = flow.nn.Parameter(flow.Tensor([1.0]))
        >>> opt = flow.optim.AdamW([w], lr=0.1, weight_decay=0.5)
        >>> (w * 0.0).sum().backward()  # a zero gradient: only the decay moves w
        >>> opt.step()
        >>> round(float(w.numpy()[0]), 4)
        0.95
    """

    _name = "AdamW"

    @classmethod
    def _chain(cls, hyper: Mapping[str, Any]) -> optax.GradientTransformation:
        return optax.chain(
            optax.scale(hyper["scale"]),
            T.adam_direction(hyper["beta1"], hyper["beta2"], hyper["eps"]),
            optax.add_decayed_weights(hyper["weight_decay"]),  # the kernel's weight_decay * w
            T.scale_by_learning_rate(),
        )
