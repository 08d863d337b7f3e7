"""Update rules: RMSProp and the layer-wise trust-ratio rules LAMB and LARS.

As in ``_optimizers.py`` each ``_rule`` is the last link of the optimizer chain and mirrors
OneFlow's v0.4 model-update kernels; these keep the rate or the decay inside their own formula
(the trust ratios, RMSProp's guard for a zero denominator), which no Optax piece computes.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax.numpy as jnp
import optax

from . import transforms as T
from ._base import Optimizer
from ._loss_scale import LossScalePolicy
from ._optimizers import _non_negative, _Patterns, _positive, _unit_interval, _zeros
from ._schedules import LrScheduler
from .grad_clipping import ClipGradient

__all__ = ["RMSProp", "LAMB", "LARS"]


class RMSProp(Optimizer):
    """RMSProp: ``s = d s + (1-d) g^2; w -= lr * g / sqrt(denom + eps)``.

    ``denom = s`` or, when ``centered``, ``s - mg^2`` with ``mg = d mg + (1-d) g``. States:
    ``"<var>-mean_square"`` and (centered) ``"<var>-mean_gradient"``. As in OneFlow's kernel,
    weight decay is not part of this rule. ``epsilon=0`` is allowed as in OneFlow; where
    ``denom + eps`` is 0 (the element never had a gradient) the element stays unchanged,
    where OneFlow's kernel computes ``0 * rsqrt(0)`` = NaN.
    """

    _name = "RMSProp"

    def __init__(
        self,
        lr_scheduler: LrScheduler,
        decay_rate: float = 0.99,
        epsilon: float = 1e-8,
        centered: bool = False,
        loss_scale_factor: float | None = None,
        grad_clipping: ClipGradient | None = None,
        train_step_lbn: str | None = None,
        loss_scale_policy: LossScalePolicy | None = None,
        variables: Sequence[str] | None = None,
    ):
        super().__init__(
            lr_scheduler,
            loss_scale_factor=loss_scale_factor,
            grad_clipping=grad_clipping,
            variables=variables,
            loss_scale_policy=loss_scale_policy,
            train_step_lbn=train_step_lbn,
        )
        self.decay_rate = _unit_interval(decay_rate, self._name, "decay_rate")
        self.epsilon = _non_negative(epsilon, self._name, "epsilon")
        self.centered = bool(centered)

    def _rule(self):
        def slots(param):
            own = {"mean_square": _zeros(param)}
            if self.centered:
                own["mean_gradient"] = _zeros(param)
            return own

        def rule(name, g, w, own, lr, step):
            d = self.decay_rate
            ms = (1.0 - d) * g * g + d * own["mean_square"]
            changed = {"mean_square": ms}
            denom = ms
            if self.centered:
                mg = (1.0 - d) * g + d * own["mean_gradient"]
                changed["mean_gradient"] = mg
                denom = ms - mg * mg
            denom = denom + self.epsilon
            safe = jnp.where(denom > 0, denom, 1.0)
            return -(lr * jnp.where(denom > 0, g / jnp.sqrt(safe), 0.0)), changed

        return T.per_variable(slots, rule)

    def _fields(self):
        return {"decay_rate": self.decay_rate, "epsilon": self.epsilon, "centered": self.centered}


class LAMB(Optimizer):
    """LAMB with per-variable trust ratio, as OneFlow's v0.4 kernel computes it.

    ``b1t *= b1; b2t *= b2`` (states ``"<var>-beta1_t"``/``"<var>-beta2_t"``, shape (1,),
    starting at ``b1``/``b2``, updated *before* use, so the first step corrects with
    ``1 - b1^2``); ``u = (m / (1-b1t)) / (sqrt(v / (1-b2t)) + eps)`` (epsilon outside the root,
    as the kernel's ``LambGradFunctor``);
    ``w -= lr * r * (u + wd * w)`` with ``r = ||w|| / ||u||`` (1 if either norm is 0).
    """

    _name = "LAMB"

    def __init__(
        self,
        lr_scheduler: LrScheduler,
        beta1: float = 0.9,
        beta2: float = 0.999,
        epsilon: float = 1e-6,
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

    def _rule(self):
        def slots(param):
            return {
                "m": _zeros(param),
                "v": _zeros(param),
                "beta1_t": jnp.full((1,), self.beta1, param.dtype),
                "beta2_t": jnp.full((1,), self.beta2, param.dtype),
            }

        def rule(name, g, w, own, lr, step):
            b1t = own["beta1_t"] * self.beta1
            b2t = own["beta2_t"] * self.beta2
            m = optax.tree.update_moment(g, own["m"], self.beta1, 1)
            v = optax.tree.update_moment(g, own["v"], self.beta2, 2)
            u = (m / (1.0 - b1t[0])) / (jnp.sqrt(v / (1.0 - b2t[0])) + self.epsilon)
            w_norm = jnp.sqrt(jnp.sum(w * w))
            u_norm = jnp.sqrt(jnp.sum(u * u))
            ok = (w_norm > 0) & (u_norm > 0)
            trust = jnp.where(ok, w_norm / jnp.where(ok, u_norm, 1.0), 1.0)
            update = -(lr * trust * (u + self.weight_decay_rate(name) * w))
            return update, {"m": m, "v": v, "beta1_t": b1t, "beta2_t": b2t}

        return T.per_variable(slots, rule)

    def _fields(self):
        return {"beta1": self.beta1, "beta2": self.beta2, "epsilon": self.epsilon}


class LARS(Optimizer):
    """LARS, following OneFlow v0.4's kernel (``LarsUpdateKernelUtil``).

    With L2 norms ``|w|`` and ``|g|`` over the variable:
    ``local_lr = lr * coeff * |w| / (eps + |g| + wd * |w|)`` (``lr`` itself when either
    norm is 0); ``mom = beta * mom - local_lr * g``; ``w += mom - local_lr * wd * w``: weight
    decay stays out of the momentum. State ``"<var>-momentum"``.
    """

    _name = "LARS"

    def __init__(
        self,
        lr_scheduler: LrScheduler,
        momentum_beta: float = 0.9,
        epsilon: float = 1e-9,
        lars_coefficient: float = 0.0001,
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
            loss_scale_factor=loss_scale_factor,
            grad_clipping=grad_clipping,
            variables=variables,
            loss_scale_policy=loss_scale_policy,
            train_step_lbn=train_step_lbn,
            weight_decay=weight_decay,
            weight_decay_includes=weight_decay_includes,
            weight_decay_excludes=weight_decay_excludes,
        )
        self.momentum_beta = _unit_interval(momentum_beta, self._name, "momentum_beta")
        self.epsilon = _positive(epsilon, self._name, "epsilon")
        self.lars_coefficient = _positive(lars_coefficient, self._name, "lars_coefficient")

    def _rule(self):
        def rule(name, g, w, own, lr, step):
            decay = self.weight_decay_rate(name)
            w_norm = jnp.sqrt(jnp.sum(w * w))
            g_norm = jnp.sqrt(jnp.sum(g * g))
            ratio = self.lars_coefficient * w_norm / (self.epsilon + g_norm + decay * w_norm)
            local_lr = lr * jnp.where((w_norm > 0) & (g_norm > 0), ratio, 1.0)
            mom = self.momentum_beta * own["momentum"] - local_lr * g
            return mom - local_lr * decay * w, {"momentum": mom}

        return T.per_variable(lambda p: {"momentum": _zeros(p)}, rule)

    def _fields(self):
        return {
            "momentum_beta": self.momentum_beta,
            "epsilon": self.epsilon,
            "lars_coefficient": self.lars_coefficient,
        }
