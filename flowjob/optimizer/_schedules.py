"""Learning-rate schedulers: ``sched(step) -> lr`` as pure, jit-able JAX functions.

Formulas follow OneFlow's learning-rate kernel (``learning_rate_schedule_kernel.cpp``): the
first train step is 0, piecewise boundaries are inclusive (``step <= b``), warmup replaces the
decayed rate while ``step < warmup.steps`` and the decay itself sees the unshifted step.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence

import jax.numpy as jnp

from .._deprecation import warn_once
from ._numerics import compute_dtype
from .warmup import Warmup

__all__ = [
    "LrScheduler",
    "PiecewiseConstantScheduler",
    "PiecewiseScalingScheduler",
    "CosineScheduler",
    "PolynomialScheduler",
    "PolynomialSchduler",
    "ExponentialScheduler",
    "InverseTimeScheduler",
    "NaturalExpScheduler",
    "LinearCosineScheduler",
    "CustomScheduler",
]


def _as_step(step):
    """The train step as an integer JAX scalar (accepts ints, 0-d arrays and shape ``(1,)``)."""
    arr = jnp.asarray(step)
    if not jnp.issubdtype(arr.dtype, jnp.integer):
        raise TypeError(f"learning-rate scheduler: step must be an integer, got dtype {arr.dtype}")
    if arr.size != 1:
        raise ValueError(f"learning-rate scheduler: step must be a scalar, got shape {arr.shape}")
    return arr.reshape(())


def _integer(value) -> int | None:
    """``value`` as an int if it is an integer (Python or NumPy, not bool), else None."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return None
    return int(value)


def _positive_int(value, who: str, name: str = "steps") -> int:
    out = _integer(value)
    if out is None or out <= 0:
        raise ValueError(f"{who}: {name} must be a positive int, got {value!r}")
    return out


def _int_list(values, who: str, name: str) -> list[int]:
    out = []
    for v in values:
        if _integer(v) is None:
            raise TypeError(f"{who}: {name} must be ints, got {v!r}")
        out.append(int(v))
    return out


class LrScheduler:
    """Base class. Subclasses implement ``_decayed(step, fstep)`` (integer and float step).

    Arithmetic runs in float64 when JAX has x64 enabled (as OneFlow's kernel does in double);
    the result is a float32 scalar.
    """

    _name = "LrScheduler"

    def __init__(self, base_lr: float | None, warmup: Warmup | None = None):
        if warmup is not None and not isinstance(warmup, Warmup):
            raise TypeError(
                f"{self._name}: warmup must be flow.optimizer.warmup.constant(...) or "
                f".linear(...), got {type(warmup).__name__}"
            )
        self.base_lr = None if base_lr is None else float(base_lr)
        self.warmup = warmup

    def __call__(self, step):
        step = _as_step(step)
        fstep = step.astype(compute_dtype())
        lr = jnp.asarray(self._decayed(step, fstep), fstep.dtype)
        if self.warmup is not None:
            lr = jnp.where(self.warmup.active(step), self.warmup(self.base_lr, fstep), lr)
        return lr.astype(jnp.float32)

    def _decayed(self, step, fstep):
        raise NotImplementedError

    def _fields(self) -> dict:
        return {}

    @property
    def learning_rate_decay_conf(self) -> dict | None:
        """OneFlow's ``LearningRateDecayConf`` for this schedule, as a dict."""
        return None

    @property
    def warmup_conf(self) -> dict | None:
        return None if self.warmup is None else self.warmup.conf

    def __repr__(self) -> str:
        fields = self._fields()
        if self.warmup is not None:
            fields["warmup"] = self.warmup
        body = ", ".join(f"{k}={v!r}" for k, v in fields.items())
        return f"{self._name}({body})"


class PiecewiseConstantScheduler(LrScheduler):
    """``lr = values[i]`` for the first ``i`` with ``step <= boundaries[i]``, else ``values[-1]``.

    ``base_lr`` (what a warmup multiplies) is ``values[0]``.
    """

    _name = "PiecewiseConstantScheduler"

    def __init__(
        self, boundaries: Sequence[int], values: Sequence[float], warmup: Warmup | None = None
    ):
        boundaries = _int_list(boundaries, self._name, "boundaries")
        values = [float(v) for v in values]
        if len(boundaries) + 1 != len(values):
            raise ValueError(
                f"{self._name}: needs len(values) == len(boundaries) + 1, got "
                f"{len(boundaries)} boundaries and {len(values)} values"
            )
        super().__init__(values[0], warmup)
        self.boundaries = boundaries
        self.values = values

    def _decayed(self, step, fstep):
        return _piecewise(step, self.boundaries, self.values)

    def _fields(self):
        return {"boundaries": self.boundaries, "values": self.values}

    @property
    def learning_rate_decay_conf(self):
        return {
            "piecewise_constant_conf": {
                "boundaries": list(self.boundaries),
                "values": list(self.values),
            }
        }


def _piecewise(step, boundaries: list[int], values: list[float]):
    if not boundaries:
        return jnp.asarray(values[0], compute_dtype())
    # First i with step <= boundaries[i] (the kernel scans in order; sorting is not assumed).
    hit = step <= jnp.asarray(boundaries, dtype=step.dtype)
    idx = jnp.where(jnp.any(hit), jnp.argmax(hit), len(boundaries))
    return jnp.asarray(values, compute_dtype())[idx]


class PiecewiseScalingScheduler(LrScheduler):
    """``lr = base_lr * ([1] + scale)[i]`` for the first ``i`` with ``step <= boundaries[i]``.

    ``scale`` is a float (used for every boundary) or one factor per boundary.
    """

    _name = "PiecewiseScalingScheduler"

    def __init__(
        self,
        base_lr: float,
        boundaries: Sequence[int],
        scale: float | Sequence[float],
        warmup: Warmup | None = None,
    ):
        super().__init__(base_lr, warmup)
        self.boundaries = _int_list(boundaries, self._name, "boundaries")
        if isinstance(scale, (int, float)):
            scale = [float(scale)] * len(self.boundaries)
        scale = [float(s) for s in scale]
        if len(scale) != len(self.boundaries):
            raise ValueError(
                f"{self._name}: needs one scale per boundary, got {len(self.boundaries)} "
                f"boundaries and {len(scale)} scales"
            )
        self.scale = [1.0] + scale

    def _decayed(self, step, fstep):
        return self.base_lr * _piecewise(step, self.boundaries, self.scale)

    def _fields(self):
        return {"base_lr": self.base_lr, "boundaries": self.boundaries, "scale": self.scale[1:]}

    @property
    def learning_rate_decay_conf(self):
        return {
            "piecewise_scaling_conf": {
                "boundaries": list(self.boundaries),
                "scales": list(self.scale),
            }
        }


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
            decay = decay * jnp.ceil(cur / decay)
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


class PolynomialSchduler(PolynomialScheduler):
    """Deprecated misspelling of :class:`PolynomialScheduler` kept by OneFlow."""

    def __init__(self, *args, **kwargs):
        warn_once(
            "PolynomialSchduler",
            "oneflow.optimizer.PolynomialSchduler will be removed in the future, use "
            "oneflow.optimizer.PolynomialScheduler instead.",
        )
        super().__init__(*args, **kwargs)


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

    def _ratio(self, fstep):
        p = fstep / self.steps
        return jnp.floor(p) if self.staircase else p

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
        return self.base_lr * jnp.power(self.decay_rate, self._ratio(fstep))


class InverseTimeScheduler(_RateScheduler):
    """``lr = base_lr / (1 + decay_rate * p)`` with ``p = step / steps`` (floored if staircase).

    As in OneFlow's kernel the floor applies to ``p`` (its docstring shows it elsewhere).
    """

    _name = "InverseTimeScheduler"
    _conf_key = "inverse_time_conf"

    def _decayed(self, step, fstep):
        return self.base_lr / (1.0 + self.decay_rate * self._ratio(fstep))


class NaturalExpScheduler(_RateScheduler):
    """``lr = base_lr * exp(-decay_rate * p)`` with ``p = step / steps`` (floored if staircase)."""

    _name = "NaturalExpScheduler"
    _conf_key = "natural_exp_conf"

    def _decayed(self, step, fstep):
        return self.base_lr * jnp.exp(-self.decay_rate * self._ratio(fstep))


class CustomScheduler(LrScheduler):
    """A learning rate computed by ``fn(step) -> lr`` (pure JAX).

    OneFlow's ``CustomScheduler(lbn)`` read the rate from a blob of the job; here the rate is a
    function of the train step instead. Warmup cannot be combined with it (as in OneFlow).
    """

    _name = "CustomScheduler"

    def __init__(self, fn: Callable):
        if not callable(fn):
            raise TypeError(
                "CustomScheduler: expected a function step -> learning rate (pure JAX), got "
                f"{type(fn).__name__}; flowjob does not read the rate from a blob name"
            )
        super().__init__(None)
        self.fn = fn

    def _decayed(self, step, fstep):
        return self.fn(step)

    def _fields(self):
        return {"fn": getattr(self.fn, "__name__", self.fn)}
