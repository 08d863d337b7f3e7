"""Learning-rate warmup strategies (``flow.optimizer.warmup``).

Semantics follow OneFlow's learning-rate kernel: while ``train_step < steps`` the warmup value
replaces the scheduled rate; from ``steps`` on the decay schedule is evaluated at the *raw*
train step (the decay is not shifted by the warmup length).
"""

from __future__ import annotations

import numbers

import jax.numpy as jnp

from ._numerics import compute_dtype

__all__ = ["Warmup", "constant", "linear"]


class Warmup:
    """Base class: ``warmup(base_lr, step)`` is the learning rate during warmup."""

    steps: int

    def __call__(self, base_lr, step):
        raise NotImplementedError

    def active(self, step):
        """True (as a JAX bool) while ``step`` is inside the warmup window."""
        return jnp.asarray(step) < self.steps

    @property
    def conf(self) -> dict:
        raise NotImplementedError


def _check_steps(steps: int, who: str) -> int:
    if isinstance(steps, bool) or not isinstance(steps, numbers.Integral) or steps < 0:
        raise ValueError(f"{who}: steps must be a non-negative int, got {steps!r}")
    return int(steps)


class constant(Warmup):  # noqa: N801 - OneFlow's public spelling
    """Constant warmup: ``lr = base_lr * multiplier`` for ``step < steps``.

    ``multiplier`` must lie in (0, 1), as OneFlow's kernel checks.
    """

    def __init__(self, steps: int, multiplier: float):
        self.steps = _check_steps(steps, "warmup.constant")
        multiplier = float(multiplier)
        if not 0.0 < multiplier < 1.0:
            raise ValueError(f"warmup.constant: multiplier must be in (0, 1), got {multiplier}")
        self.multiplier = multiplier

    def __call__(self, base_lr, step):
        return jnp.asarray(base_lr, compute_dtype()) * self.multiplier

    @property
    def conf(self) -> dict:
        return {"constant_conf": {"warmup_batches": self.steps, "multiplier": self.multiplier}}

    def __repr__(self) -> str:
        return f"warmup.constant(steps={self.steps}, multiplier={self.multiplier})"


class linear(Warmup):  # noqa: N801 - OneFlow's public spelling
    """Linear warmup: ``lr = base_lr * (m0 + (1 - m0) * step / steps)`` for ``step < steps``.

    ``start_multiplier`` (``m0``) must lie in [0, 1), as OneFlow's kernel checks.
    """

    def __init__(self, steps: int, start_multiplier: float):
        self.steps = _check_steps(steps, "warmup.linear")
        start_multiplier = float(start_multiplier)
        if not 0.0 <= start_multiplier < 1.0:
            raise ValueError(
                f"warmup.linear: start_multiplier must be in [0, 1), got {start_multiplier}"
            )
        self.start_multiplier = start_multiplier

    def __call__(self, base_lr, step):
        frac = jnp.asarray(step, compute_dtype()) / max(self.steps, 1)
        m0 = self.start_multiplier
        return jnp.asarray(base_lr, compute_dtype()) * (m0 + (1.0 - m0) * frac)

    @property
    def conf(self) -> dict:
        return {
            "linear_conf": {"warmup_batches": self.steps, "start_multiplier": self.start_multiplier}
        }

    def __repr__(self) -> str:
        return f"warmup.linear(steps={self.steps}, start_multiplier={self.start_multiplier})"
