"""Learning-rate schedulers: ``sched(step) -> lr`` as pure, jit-able JAX functions.

This module holds the base class, the piecewise schedules and ``CustomScheduler``; the
decaying ones (cosine, polynomial, exponential...) are in ``_decay_schedules.py``.

Formulas follow OneFlow's learning-rate kernel (``learning_rate_schedule_kernel.cpp``): the
first train step is 0, piecewise boundaries are inclusive (``step <= b``), warmup replaces the
decayed rate while ``step < warmup.steps`` and the decay itself sees the unshifted step.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence

import jax.numpy as jnp

from ._numerics import compute_dtype
from .warmup import Warmup

__all__ = [
    "LrScheduler",
    "PiecewiseConstantScheduler",
    "PiecewiseScalingScheduler",
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
