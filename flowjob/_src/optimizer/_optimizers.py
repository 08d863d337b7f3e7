"""Update rules: SGD (plain and momentum) and Adam/AdamW/LazyAdam (RMSProp, LAMB and LARS
are in ``_layerwise.py``).

Each ``_rule`` is the last link of the optimizer chain and mirrors the arithmetic of OneFlow's
model-update kernels (``oneflow/user/kernels/model_update_kernel_util.*``, v0.4): weight decay
enters the update itself (``w -= lr * (update + wd * w)``), so it is decoupled from the
gradient statistics. Plain SGD and Adam take their weight decay from Optax
(``add_decayed_weights``: the kernels' ``g + wd * w``) and their moments from
``optax.tree.update_moment`` (``b * m + (1 - b) * g^k``); momentum SGD, RMSProp, LAMB and
LARS keep the rate or the decay inside their own formula (momentum ``v = b v - lr g``, the
trust ratios, RMSProp's guard for a zero denominator), which no Optax piece computes.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax.numpy as jnp
import optax

from . import transforms as T
from ._base import Optimizer
from ._loss_scale import LossScalePolicy
from ._schedules import LrScheduler
from .grad_clipping import ClipGradient

__all__ = ["SGD", "SGDW", "Adam", "AdamW", "LazyAdam"]

_Patterns = Sequence[str] | str | None


def _zeros(param):
    return jnp.zeros(tuple(param.shape), param.dtype)


def _unit_interval(value, who: str, name: str, *, closed_low: bool = True) -> float:
    value = float(value)
    ok = (0.0 <= value < 1.0) if closed_low else (0.0 < value < 1.0)
    if not ok:
        raise ValueError(f"{who}: {name} must be in {'[' if closed_low else '('}0, 1), got {value}")
    return value


def _non_negative(value, who: str, name: str) -> float:
    value = float(value)
    if not value >= 0.0:
        raise ValueError(f"{who}: {name} must be >= 0, got {value}")
    return value


def _positive(value, who: str, name: str) -> float:
    value = float(value)
    if not value > 0.0:
        raise ValueError(f"{who}: {name} must be > 0, got {value}")
    return value


class SGD(Optimizer):
    """Stochastic gradient descent; OneFlow's default ``momentum`` is 0.9.

    ``momentum == 0`` (or ``None``): ``w -= lr * (g + wd * w)`` (no state).
    Otherwise: ``v = momentum * v - lr * g; w += v - lr * wd * w`` with state ``"<var>-momentum"``.
    ``minimize(loss)`` in a ``type="train"`` job body makes every call take one step; the
    gradient is that of the summed loss scaled by 1/N (OneFlow's rule).

    Args:
        lr_scheduler: the learning rate, e.g. ``flow.optimizer.PiecewiseConstantScheduler([],
            [0.1])`` (a constant) or a decay schedule with optional warmup.
        loss_scale_factor: a constant the loss is multiplied by (and gradients divided by).
        momentum: the momentum; 0 or None for plain SGD.
        grad_clipping: ``flow.optimizer.grad_clipping.by_global_norm(...)``.
        weight_decay: the L2 weight decay ``wd``.
        weight_decay_includes: patterns of the variable names that decay (default: all).
        weight_decay_excludes: patterns of the variable names that do not decay.
        variables: names of the variables to train (default: every trainable one).
        loss_scale_policy: ``flow.optimizer.loss_scale.dynamic_loss_scale(...)`` or a static one.

    Raises:
        JobDefinitionError: ``minimize`` is called outside a train job's body.

    Examples:
        >>> import numpy as np, flowjob as flow, flowjob.typing as tp
        >>> @flow.global_function(type="train")
        ... def fit(x: tp.Numpy.Placeholder((4, 1))) -> tp.Numpy:
        ...     w = flow.get_variable("w", (1,), initializer=flow.zeros_initializer())
        ...     loss = flow.math.reduce_mean(flow.math.square(x * w - 2 * x))
        ...     flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]),
        ...                        momentum=0).minimize(loss)
        ...     return loss
        >>> x = np.ones((4, 1), np.float32)
        >>> losses = [fit(x)[0] for _ in range(30)]
        >>> bool(losses[-1] < 1e-4 < losses[0])
        True
    """

    _name = "SGD"

    def __init__(
        self,
        lr_scheduler: LrScheduler,
        loss_scale_factor: float | None = None,
        momentum: float | None = 0.9,
        grad_clipping: ClipGradient | None = None,
        train_step_lbn: str | None = None,
        loss_scale_policy: LossScalePolicy | None = None,
        variables: Sequence[str] | None = None,
        *,
        weight_decay: float | None = None,
        weight_decay_includes: _Patterns = None,
        weight_decay_excludes: _Patterns = None,
    ):
        super().__init__(
            lr_scheduler,
            loss_scale_factor=loss_scale_factor,
            grad_clipping=grad_clipping,
            variables=variables,
            loss_scale_policy=loss_scale_policy,
            train_step_lbn=train_step_lbn,
            weight_decay=weight_decay,
            weight_decay_includes=weight_decay_includes,
            weight_decay_excludes=weight_decay_excludes,
        )
        # OneFlow-Benchmark passes momentum=None for "no momentum" (its --momentum 0), which
        # OneFlow v0.4 wrote into momentum_conf.beta and failed on; None means 0 here.
        momentum = 0.0 if momentum is None else float(momentum)
        if momentum < 0.0:
            raise ValueError(f"{self._name}: momentum must be >= 0, got {momentum}")
        self.momentum = momentum

    def _rule(self):
        if self.momentum == 0.0:
            return optax.chain(self._decay(), T.scale_by_learning_rate())

        def rule(name, g, w, own, lr, step):
            velocity = self.momentum * own["momentum"] - lr * g
            return velocity - lr * self.weight_decay_rate(name) * w, {"momentum": velocity}

        return T.per_variable(lambda p: {"momentum": _zeros(p)}, rule)

    def _fields(self):
        return {"momentum": self.momentum}


class SGDW(SGD):
    """SGD with decoupled weight decay (same update as ``SGD(weight_decay=...)``)."""

    _name = "SGDW"

    def __init__(
        self,
        lr_scheduler: LrScheduler,
        loss_scale_factor: float | None = None,
        momentum: float | None = 0.9,
        weight_decay: float | None = None,
        weight_decay_includes: _Patterns = None,
        weight_decay_excludes: _Patterns = None,
        grad_clipping: ClipGradient | None = None,
        train_step_lbn: str | None = None,
        loss_scale_policy: LossScalePolicy | None = None,
        variables: Sequence[str] | None = None,
    ):
        super().__init__(
            lr_scheduler,
            loss_scale_factor,
            momentum,
            grad_clipping,
            weight_decay=weight_decay,
            weight_decay_includes=weight_decay_includes,
            weight_decay_excludes=weight_decay_excludes,
            variables=variables,
            loss_scale_policy=loss_scale_policy,
            train_step_lbn=train_step_lbn,
        )


class Adam(Optimizer):
    """Adam; OneFlow's default is **no** bias correction.

    ``m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; w -= lr_t * (m / (sqrt(v) + eps) + wd * w)``
    where ``lr_t = lr`` or, with ``do_bias_correction``,
    ``lr * sqrt(1 - b2^(t+1)) / (1 - b1^(t+1))`` at train step ``t`` (from 0). States:
    ``"<var>-m"``, ``"<var>-v"``.
    """

    _name = "Adam"

    def __init__(
        self,
        lr_scheduler: LrScheduler,
        beta1: float = 0.9,
        beta2: float = 0.999,
        epsilon: float = 1e-8,
        do_bias_correction: bool = False,
        loss_scale_factor: float | None = None,
        grad_clipping: ClipGradient | None = None,
        train_step_lbn: str | None = None,
        loss_scale_policy: LossScalePolicy | None = None,
        variables: Sequence[str] | None = None,
        *,
        weight_decay: float | None = None,
        weight_decay_includes: _Patterns = None,
        weight_decay_excludes: _Patterns = None,
    ):
        super().__init__(
            lr_scheduler,
            loss_scale_factor=loss_scale_factor,
            grad_clipping=grad_clipping,
            variables=variables,
            loss_scale_policy=loss_scale_policy,
            train_step_lbn=train_step_lbn,
            weight_decay=weight_decay,
            weight_decay_includes=weight_decay_includes,
            weight_decay_excludes=weight_decay_excludes,
        )
        self.beta1 = _unit_interval(beta1, self._name, "beta1")
        self.beta2 = _unit_interval(beta2, self._name, "beta2")
        self.epsilon = _positive(epsilon, self._name, "epsilon")
        self.do_bias_correction = bool(do_bias_correction)

    def _rule(self):
        def moments(name, g, w, own, lr, step):
            m = optax.tree.update_moment(g, own["m"], self.beta1, 1)
            v = optax.tree.update_moment(g, own["v"], self.beta2, 2)
            return m / (jnp.sqrt(v) + self.epsilon), {"m": m, "v": v}

        slots = T.per_variable(lambda p: {"m": _zeros(p), "v": _zeros(p)}, moments)
        rate = T.scale_by_learning_rate(self._bias_corrected if self.do_bias_correction else None)
        return optax.chain(slots, self._decay(), rate)

    def _bias_corrected(self, lr, step):
        """OneFlow's ``adam_bias_correction_learning_rate``: ``lr * sqrt(1 - b2^t) /
        (1 - b1^t)`` with ``t = step + 1``; the whole update (weight decay too) uses it."""
        t = step.astype(jnp.float32) + 1.0
        return (
            lr
            * jnp.sqrt(1.0 - jnp.power(jnp.float32(self.beta2), t))
            / (1.0 - jnp.power(jnp.float32(self.beta1), t))
        )

    def _fields(self):
        return {
            "beta1": self.beta1,
            "beta2": self.beta2,
            "epsilon": self.epsilon,
            "do_bias_correction": self.do_bias_correction,
        }


class AdamW(Adam):
    """Adam with decoupled weight decay (OneFlow's argument order)."""

    _name = "AdamW"

    def __init__(
        self,
        lr_scheduler: LrScheduler,
        beta1: float = 0.9,
        beta2: float = 0.999,
        epsilon: float = 1e-8,
        do_bias_correction: bool = False,
        loss_scale_factor: float | None = None,
        weight_decay: float | None = None,
        weight_decay_includes: _Patterns = None,
        weight_decay_excludes: _Patterns = None,
        grad_clipping: ClipGradient | None = None,
        train_step_lbn: str | None = None,
        loss_scale_policy: LossScalePolicy | None = None,
        variables: Sequence[str] | None = None,
    ):
        super().__init__(
            lr_scheduler,
            beta1,
            beta2,
            epsilon,
            do_bias_correction,
            loss_scale_factor,
            grad_clipping,
            weight_decay=weight_decay,
            weight_decay_includes=weight_decay_includes,
            weight_decay_excludes=weight_decay_excludes,
            variables=variables,
            loss_scale_policy=loss_scale_policy,
            train_step_lbn=train_step_lbn,
        )


class LazyAdam(Adam):
    """OneFlow's LazyAdam: the ``adam_update`` rule with bias correction. As in OneFlow, the
    "lazy" row updates come from ``indexed_slices_optimizer_conf`` (which makes SGD, momentum
    and Adam update only the rows a ``flow.gather`` read), not from this class.
    """

    _name = "LazyAdam"

    def __init__(
        self,
        lr_scheduler: LrScheduler,
        beta1: float = 0.9,
        beta2: float = 0.999,
        epsilon: float = 1e-8,
        loss_scale_factor: float | None = None,
        grad_clipping: ClipGradient | None = None,
        train_step_lbn: str | None = None,
        loss_scale_policy: LossScalePolicy | None = None,
        variables: Sequence[str] | None = None,
    ):
        super().__init__(
            lr_scheduler,
            beta1,
            beta2,
            epsilon,
            True,
            loss_scale_factor,
            grad_clipping,
            variables=variables,
            loss_scale_policy=loss_scale_policy,
            train_step_lbn=train_step_lbn,
        )

    def _fields(self):
        return {"beta1": self.beta1, "beta2": self.beta2, "epsilon": self.epsilon}
