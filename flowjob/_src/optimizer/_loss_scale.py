"""``flow.optimizer.loss_scale``: static and dynamic loss scaling, as OneFlow v0.4 runs them.

The runtime seeds the loss gradient with ``scale`` and divides the parameter gradients by it
again, so with finite gradients the update does not depend on the scale. A dynamic policy
keeps two state variables per job (``System-Train-DynamicLossScale-<job>-LossScale`` and
``-GoodStepCounter``); when any gradient is not finite the update is skipped (variables and
optimizer slots keep their values) and the scale is divided by ``multiplier`` (never below
1); after ``increment_period`` finite steps in a row it is multiplied by ``multiplier``
(capped at the float32 maximum). This is the rule of OneFlow's
``dynamic_loss_scale_schedule`` kernel.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

__all__ = [
    "LossScalePolicy",
    "StaticLossScalePolicy",
    "DynamicLossScalePolicy",
    "static_loss_scale",
    "dynamic_loss_scale",
]

_PREFIX = "System-Train-DynamicLossScale-"


class LossScalePolicy:
    """Base class: ``state(job)`` names the state variables a job keeps, ``scale(state)`` is
    the factor of this step, ``next_state(state, finite)`` the state after it.
    ``skips_non_finite``: whether a step with non-finite gradients leaves the variables alone."""

    skips_non_finite = False

    def state(self, job_name: str) -> dict[str, np.ndarray]:
        return {}

    def scale(self, job_name: str, state) -> jnp.ndarray:
        raise NotImplementedError

    def next_state(self, job_name: str, state, finite) -> dict:
        return {}


class StaticLossScalePolicy(LossScalePolicy):
    """A fixed factor (``loss_scale_factor=`` of the optimizers is the same thing)."""

    def __init__(self, loss_scale_factor: float):
        factor = float(loss_scale_factor)
        if not factor > 0:
            raise ValueError(f"static_loss_scale: loss_scale_factor must be > 0, got {factor}")
        self.loss_scale_factor = factor

    def scale(self, job_name: str, state) -> jnp.ndarray:
        return jnp.float32(self.loss_scale_factor)

    def __repr__(self) -> str:
        return f"static_loss_scale({self.loss_scale_factor!r})"


class DynamicLossScalePolicy(LossScalePolicy):
    """OneFlow's dynamic policy: start at ``initial_loss_scale``; on non-finite gradients skip
    the update and divide by ``multiplier`` (not below 1); after ``increment_period`` good
    steps in a row multiply by it."""

    skips_non_finite = True

    def __init__(
        self,
        initial_loss_scale: float = 2.0**30,
        increment_period: int = 2000,
        multiplier: float = 2.0,
    ):
        if not float(initial_loss_scale) > 0:
            raise ValueError(
                f"dynamic_loss_scale: initial_loss_scale must be > 0, got {initial_loss_scale}"
            )
        if int(increment_period) < 1:
            raise ValueError(
                f"dynamic_loss_scale: increment_period must be >= 1, got {increment_period}"
            )
        if not float(multiplier) > 1:
            raise ValueError(f"dynamic_loss_scale: multiplier must be > 1, got {multiplier}")
        self.initial_loss_scale = float(initial_loss_scale)
        self.increment_period = int(increment_period)
        self.multiplier = float(multiplier)

    @staticmethod
    def names(job_name: str) -> tuple[str, str]:
        """The job's state variables: (loss scale, good step counter)."""
        return f"{_PREFIX}{job_name}-LossScale", f"{_PREFIX}{job_name}-GoodStepCounter"

    def state(self, job_name: str) -> dict[str, np.ndarray]:
        scale, counter = self.names(job_name)
        return {
            scale: np.full((1,), self.initial_loss_scale, np.float32),
            counter: np.zeros((1,), np.int64),
        }

    def scale(self, job_name: str, state) -> jnp.ndarray:
        return state[self.names(job_name)[0]][0]

    def next_state(self, job_name: str, state, finite) -> dict:
        scale_name, counter_name = self.names(job_name)
        # float64 arithmetic on the host side of OneFlow's kernel; float32 is exact enough for
        # powers of the multiplier and the caps below.
        scale, counter = state[scale_name], state[counter_name]
        good = counter + 1
        grow = good >= self.increment_period
        f32_max = jnp.float32(np.finfo(np.float32).max)
        grown = jnp.where(grow, jnp.minimum(scale * self.multiplier, f32_max), scale)
        shrunk = jnp.maximum(scale / self.multiplier, jnp.float32(1.0))
        return {
            scale_name: jnp.where(finite, grown, shrunk).astype(jnp.float32),
            counter_name: jnp.where(finite, jnp.where(grow, 0, good), 0).astype(counter.dtype),
        }

    def __repr__(self) -> str:
        return (
            f"dynamic_loss_scale(initial_loss_scale={self.initial_loss_scale!r}, "
            f"increment_period={self.increment_period!r}, multiplier={self.multiplier!r})"
        )


# OneFlow's exported spellings: flow.optimizer.loss_scale.static_loss_scale(...) etc.
static_loss_scale = StaticLossScalePolicy
dynamic_loss_scale = DynamicLossScalePolicy
