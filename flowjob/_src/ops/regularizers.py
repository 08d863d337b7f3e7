"""Weight regularizers (``flow.regularizers.l1``, ``.l2``, ``.l1_l2``).

OneFlow does not add a loss term: its job rewriter adds ``l1 * sign(w) + l2 * w`` to the
variable's gradient after the gradient was divided by the loss element count N and before
clipping. That equals adding ``l1 * sum|w| + (l2 / 2) * sum(w**2)`` to the *mean* loss (the
term itself is not divided by N). The runtime applies :func:`regularization_grad`.
"""

from __future__ import annotations

import jax.numpy as jnp

__all__ = ["Regularizer", "l1", "l2", "l1_l2", "regularization_grad", "regularization_loss"]


class Regularizer:
    """An L1/L2 regularizer with coefficients ``.l1`` and ``.l2``."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0, text: str | None = None):
        l1, l2 = float(l1), float(l2)
        if l1 < 0 or l2 < 0:
            raise ValueError(f"regularizer coefficients must be >= 0, got l1={l1}, l2={l2}")
        self.l1 = l1
        self.l2 = l2
        self._text = text or f"regularizers.l1_l2(l1={l1!r}, l2={l2!r})"

    @property
    def conf(self) -> dict:
        """OneFlow ``RegularizerConf`` as a dict."""
        return {"l1_l2_conf": {"l1": self.l1, "l2": self.l2}}

    def __eq__(self, other) -> bool:
        return isinstance(other, Regularizer) and (self.l1, self.l2) == (other.l1, other.l2)

    def __hash__(self) -> int:
        return hash((self.l1, self.l2))

    def __repr__(self) -> str:
        return self._text


def l1(l: float = 0.01) -> Regularizer:  # noqa: E741 - OneFlow's parameter name
    """L1 regularizer: gradient term ``l * sign(w)``."""
    return Regularizer(l1=l, l2=0.0, text=f"regularizers.l1(l={float(l)!r})")


def l2(l: float = 0.01) -> Regularizer:  # noqa: E741 - OneFlow's parameter name
    """L2 regularizer: gradient term ``l * w``."""
    return Regularizer(l1=0.0, l2=l, text=f"regularizers.l2(l={float(l)!r})")


def l1_l2(l1: float = 0.01, l2: float = 0.01) -> Regularizer:
    """Combined regularizer: gradient term ``l1 * sign(w) + l2 * w``."""
    return Regularizer(l1=l1, l2=l2)


def regularization_grad(param, reg: Regularizer):
    """``reg.l1 * sign(w) + reg.l2 * w`` (``sign(0) = 0``), in ``param``'s dtype."""
    w = jnp.asarray(param)
    return (reg.l1 * jnp.sign(w) + reg.l2 * w).astype(w.dtype)


def regularization_loss(param, reg: Regularizer):
    """``l1 * sum|w| + (l2 / 2) * sum(w**2)``: the loss whose gradient is the term above."""
    w = jnp.asarray(param)
    return reg.l1 * jnp.sum(jnp.abs(w)) + 0.5 * reg.l2 * jnp.sum(w * w)
