"""Decaying learning-rate schedules: cosine, polynomial, linear-cosine, exponential,
inverse-time and natural-exp (OneFlow's ``learning_rate_schedule_kernel.cpp`` formulas; the
base class and the piecewise schedules are in ``_schedules.py``)."""

from __future__ import annotations

import math

import jax.numpy as jnp

from .._deprecation import warn_once
from ._schedules import LrScheduler, _positive_int
from .warmup import Warmup

__all__ = [
    "CosineScheduler",
    "PolynomialScheduler",
    "ExponentialScheduler",
    "InverseTimeScheduler",
    "NaturalExpScheduler",
    "LinearCosineScheduler",
]


class CosineScheduler(LrScheduler):
    """``lr = base_lr * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, steps) / steps)) + alpha)``."""

    _name = "CosineScheduler"

    def __init__(
        self, base_lr: float, steps: int, alpha: float = 0.0, warmup: Warmup | None = None
    ):
        super().__init__(base_lr, warmup)
        self.steps = _positive_int(steps, self._name)
        self.alpha = float(alpha)

    def _decayed(self, step, fstep):
        cur = jnp.minimum(fstep, self.steps)
        cosine = 0.5 * (1.0 + jnp.cos(math.pi * cur / self.steps))
        return self.base_lr * ((1.0 - self.alpha) * cosine + self.alpha)

    def _fields(self):
        return {"base_lr": self.base_lr, "steps": self.steps, "alpha": self.alpha}

    @property
    def learning_rate_decay_conf(self):
        return {"cosine_conf": {"decay_batches": self.steps, "alpha": self.alpha}}


class PolynomialScheduler(LrScheduler):
    """``lr = (base_lr - end) * (1 - step / decay) ** power + end``.

    Without ``cycle`` the step is capped at ``steps``; with ``cycle`` the decay length becomes
    ``steps * ceil(step / steps)`` (step 0 counts as 1), restarting the decay every period.
    """

    _name = "PolynomialScheduler"

    def __init__(
        self,
        base_lr: float,
        steps: int,
        end_learning_rate: float = 0.0001,
        power: float = 1.0,
        cycle: bool = False,
        warmup: Warmup | None = None,
    ):
        super().__init__(base_lr, warmup)
        self.steps = _positive_int(steps, self._name)
        self.end_learning_rate = float(end_learning_rate)
        self.power = float(power)
        self.cycle = bool(cycle)

    def _decayed(self, step, fstep):
        decay = jnp.asarray(self.steps, fstep.dtype)
        if self.cycle:
            cur = jnp.where(step == 0, jnp.ones_like(fstep), fstep)
            # ceil in integers: a GPU divides by a constant as a product with its reciprocal,
            # and 21 / 7 there is 3.0000002, which ceil makes a period too many.
            periods = (jnp.maximum(step, 1) + self.steps - 1) // self.steps
            decay = decay * periods.astype(fstep.dtype)
        else:
            cur = jnp.minimum(fstep, decay)
        end = self.end_learning_rate
        # cur <= decay, so the base is >= 0; the clamp only removes rounding below zero.
        frac = jnp.maximum(1.0 - cur / decay, 0.0)
        return (self.base_lr - end) * jnp.power(frac, self.power) + end

    def _fields(self):
        return {
            "base_lr": self.base_lr,
            "steps": self.steps,
            "end_learning_rate": self.end_learning_rate,
            "power": self.power,
            "cycle": self.cycle,
        }

    @property
    def learning_rate_decay_conf(self):
        return {
            "polynomial_conf": {
                "decay_batches": self.steps,
                "end_learning_rate": self.end_learning_rate,
                "power": self.power,
                "cycle": self.cycle,
            }
        }


class LinearCosineScheduler(LrScheduler):
    """``lr = base_lr * ((alpha + linear) * cosine + beta)`` with the step capped at ``steps``.

    ``linear = (steps - step) / steps``, ``cosine = 0.5 * (1 + cos(2 pi num_periods step/steps))``.
    """

    _name = "LinearCosineScheduler"

    def __init__(
        self,
        base_lr: float,
        steps: int,
        num_periods: float = 0.5,
        alpha: float = 0.0,
        beta: float = 0.001,
        warmup: Warmup | None = None,
    ):
        super().__init__(base_lr, warmup)
        self.steps = _positive_int(steps, self._name)
        self.num_periods = float(num_periods)
        self.alpha = float(alpha)
        self.beta = float(beta)

    def _decayed(self, step, fstep):
        decay = jnp.asarray(self.steps, fstep.dtype)
        cur = jnp.minimum(fstep, decay)
        linear = (decay - cur) / decay
        cosine = 0.5 * (1.0 + jnp.cos(2.0 * math.pi * self.num_periods * cur / decay))
        return self.base_lr * ((self.alpha + linear) * cosine + self.beta)

    def _fields(self):
        return {
            "base_lr": self.base_lr,
            "steps": self.steps,
            "num_periods": self.num_periods,
            "alpha": self.alpha,
            "beta": self.beta,
        }

    @property
    def learning_rate_decay_conf(self):
        return {
            "linear_cosine_conf": {
                "decay_batches": self.steps,
                "num_periods": self.num_periods,
                "alpha": self.alpha,
                "beta": self.beta,
            }
        }


class _RateScheduler(LrScheduler):
    """Shared part of the exponential / inverse-time / natural-exp schedules."""

    _conf_key = ""

    def __init__(
        self,
        base_lr: float,
        steps: int,
        decay_rate: float,
        staircase: bool = False,
        warmup: Warmup | None = None,
    ):
        super().__init__(base_lr, warmup)
        self.steps = _positive_int(steps, self._name)
        self.decay_rate = float(decay_rate)
        self.staircase = bool(staircase)

    def _ratio(self, step, fstep):
        if self.staircase:  # floor in integers (see PolynomialScheduler: GPU division)
            return (step // self.steps).astype(fstep.dtype)
        return fstep / self.steps

    def _fields(self):
        return {
            "base_lr": self.base_lr,
            "steps": self.steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
        }

    @property
    def learning_rate_decay_conf(self):
        return {
            self._conf_key: {
                "decay_batches": self.steps,
                "decay_rate": self.decay_rate,
                "staircase": self.staircase,
            }
        }


class ExponentialScheduler(_RateScheduler):
    """``lr = base_lr * decay_rate ** p`` with ``p = step / steps`` (floored if ``staircase``)."""

    _name = "ExponentialScheduler"
    _conf_key = "exponential_conf"

    def _decayed(self, step, fstep):
        return self.base_lr * jnp.power(self.decay_rate, self._ratio(step, fstep))


class InverseTimeScheduler(_RateScheduler):
    """``lr = base_lr / (1 + decay_rate * p)`` with ``p = step / steps`` (floored if staircase).

    As in OneFlow's kernel the floor applies to ``p`` (its docstring shows it elsewhere).
    """

    _name = "InverseTimeScheduler"
    _conf_key = "inverse_time_conf"

    def _decayed(self, step, fstep):
        return self.base_lr / (1.0 + self.decay_rate * self._ratio(step, fstep))


class NaturalExpScheduler(_RateScheduler):
    """``lr = base_lr * exp(-decay_rate * p)`` with ``p = step / steps`` (floored if staircase)."""

    _name = "NaturalExpScheduler"
    _conf_key = "natural_exp_conf"

    def _decayed(self, step, fstep):
        return self.base_lr * jnp.exp(-self.decay_rate * self._ratio(step, fstep))
