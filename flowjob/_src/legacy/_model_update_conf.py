"""Legacy ``config.train.model_update_conf({...})`` dicts mapped onto optimizer objects.

The dict mirrors OneFlow's ``NormalModelUpdateOpUserConf`` proto: exactly one update rule
(``naive_conf``, ``momentum_conf``, ``rmsprop_conf``, ``lars_conf``, ``adam_conf``,
``lazy_adam_conf``, ``lamb_conf``) plus optional ``learning_rate_decay``, ``warmup_conf``,
``clip_conf`` and ``weight_decay_conf``. Missing fields take the proto defaults. As in OneFlow's
``ModelUpdateConfCompatiblePass``, ``train.secondary_lr`` is accepted and has no effect.
"""

from __future__ import annotations

from collections.abc import Mapping

from .. import optimizer as O
from .._deprecation import warn_once
from ..optimizer import LAMB, LARS, SGD, Adam, Optimizer, RMSProp
from ..optimizer import warmup as W
from ..optimizer.grad_clipping import by_global_norm

__all__ = ["from_model_update_conf", "scheduler_from_conf"]

_REQUIRED = object()

# Update rules: field -> proto default (v0.4 legacy API; Adam defaults to no bias correction).
_RULES: dict[str, dict[str, object]] = {
    "naive_conf": {},
    "momentum_conf": {"beta": 0.9},
    "rmsprop_conf": {"decay_rate": 0.99, "epsilon": 1e-8, "centered": False},
    "lars_conf": {"momentum_beta": 0.9, "epsilon": 1e-9, "lars_coefficient": 0.0001},
    "adam_conf": {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "do_bias_correction": False},
    "lazy_adam_conf": {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8},
    "lamb_conf": {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8},
}
_EXTRAS = ("learning_rate_decay", "warmup_conf", "clip_conf", "weight_decay_conf")

_RATE = {"decay_batches": _REQUIRED, "decay_rate": _REQUIRED, "staircase": False}
_DECAYS: dict[str, dict[str, object]] = {
    "exponential_conf": _RATE,
    "inverse_time_conf": _RATE,
    "natural_exp_conf": _RATE,
    "piecewise_constant_conf": {"boundaries": [], "values": []},
    "polynomial_conf": {
        "decay_batches": _REQUIRED,
        "end_learning_rate": 0.0001,
        "power": 1.0,
        "cycle": False,
    },
    "cosine_conf": {"decay_batches": _REQUIRED, "alpha": 0.0},
    "linear_cosine_conf": {
        "decay_batches": _REQUIRED,
        "num_periods": 0.5,
        "alpha": 0.0,
        "beta": 0.001,
    },
    "piecewise_scaling_conf": {"boundaries": [], "scales": []},
}
_WARMUPS: dict[str, dict[str, object]] = {
    "constant_conf": {"warmup_batches": _REQUIRED, "multiplier": _REQUIRED},
    "linear_conf": {"warmup_batches": _REQUIRED, "start_multiplier": _REQUIRED},
}


def _mapping(value, path: str) -> Mapping:
    if not isinstance(value, Mapping):
        raise TypeError(f"model_update_conf: {path} must be a dict, got {type(value).__name__}")
    return value


def _check_keys(conf: Mapping, accepted, path: str) -> None:
    for key in conf:
        if key not in accepted:
            raise ValueError(
                f"model_update_conf: unknown key {key!r} in {path}; accepted keys: "
                f"{', '.join(accepted) or '(none)'}"
            )


def _fields(conf, spec: dict[str, object], path: str) -> dict:
    conf = _mapping(conf, path)
    _check_keys(conf, list(spec), path)
    out = {}
    for key, default in spec.items():
        if key in conf:
            out[key] = conf[key]
        elif default is _REQUIRED:
            raise ValueError(f"model_update_conf: {path} needs {key!r}")
        else:
            out[key] = default
    return out


def _one_of(conf, options, path: str) -> str:
    conf = _mapping(conf, path)
    _check_keys(conf, list(options), path)
    if len(conf) != 1:
        raise ValueError(
            f"model_update_conf: {path} needs exactly one of {', '.join(options)}; "
            f"got {list(conf) or 'none'}"
        )
    return next(iter(conf))


def scheduler_from_conf(
    primary_lr: float, decay: Mapping | None = None, warmup: Mapping | None = None
) -> O.LrScheduler:
    """The scheduler for a legacy ``learning_rate_decay``/``warmup_conf`` pair."""
    warm = None
    if warmup is not None:
        kind = _one_of(warmup, list(_WARMUPS), "warmup_conf")
        f = _fields(warmup[kind], _WARMUPS[kind], f"warmup_conf.{kind}")
        warm = _WARMUP_BUILD[kind](f)
    if decay is None:
        return O.PiecewiseConstantScheduler([], [primary_lr], warmup=warm)
    kind = _one_of(decay, list(_DECAYS), "learning_rate_decay")
    f = _fields(decay[kind], _DECAYS[kind], f"learning_rate_decay.{kind}")
    return _DECAY_BUILD[kind](primary_lr, f, warm)


def _rate_decay(cls):
    return lambda lr, f, warm: cls(lr, f["decay_batches"], f["decay_rate"], f["staircase"], warm)


def _piecewise_constant(lr, f, warm) -> O.LrScheduler:
    sched = O.PiecewiseConstantScheduler(f["boundaries"], f["values"], warm)
    sched.base_lr = float(lr)  # the kernel's warmup scales primary_lr, not values[0]
    return sched


def _piecewise_scaling(lr, f, warm) -> O.LrScheduler:
    scales = [float(s) for s in f["scales"]]
    if len(scales) != len(f["boundaries"]) + 1:
        raise ValueError(
            "model_update_conf: learning_rate_decay.piecewise_scaling_conf needs "
            f"len(scales) == len(boundaries) + 1, got {len(f['boundaries'])} boundaries "
            f"and {len(scales)} scales"
        )
    sched = O.PiecewiseScalingScheduler(lr, f["boundaries"], scales[1:], warm)
    sched.scale = scales  # the proto lists the first-interval factor explicitly
    return sched


# Each learning_rate_decay kind's scheduler from (primary_lr, its fields, warmup).
_DECAY_BUILD = {
    "exponential_conf": _rate_decay(O.ExponentialScheduler),
    "inverse_time_conf": _rate_decay(O.InverseTimeScheduler),
    "natural_exp_conf": _rate_decay(O.NaturalExpScheduler),
    "piecewise_constant_conf": _piecewise_constant,
    "piecewise_scaling_conf": _piecewise_scaling,
    "polynomial_conf": lambda lr, f, warm: O.PolynomialScheduler(
        lr, f["decay_batches"], f["end_learning_rate"], f["power"], f["cycle"], warm
    ),
    "cosine_conf": lambda lr, f, warm: O.CosineScheduler(lr, f["decay_batches"], f["alpha"], warm),
    "linear_cosine_conf": lambda lr, f, warm: O.LinearCosineScheduler(
        lr, f["decay_batches"], f["num_periods"], f["alpha"], f["beta"], warm
    ),
}
_WARMUP_BUILD = {
    "constant_conf": lambda f: W.constant(f["warmup_batches"], f["multiplier"]),
    "linear_conf": lambda f: W.linear(f["warmup_batches"], f["start_multiplier"]),
}


def _weight_decay(conf) -> dict:
    if conf is None:
        return {}
    f = _fields(
        conf,
        {"weight_decay_rate": _REQUIRED, "includes": None, "excludes": None},
        "weight_decay_conf",
    )
    out = {"weight_decay": f["weight_decay_rate"]}
    for side in ("includes", "excludes"):
        if f[side] is not None:
            p = _fields(f[side], {"pattern": _REQUIRED}, f"weight_decay_conf.{side}")
            out[f"weight_decay_{side}"] = p["pattern"]
    return out


def _clipping(conf):
    if conf is None:
        return None
    _one_of(conf, ["clip_by_global_norm"], "clip_conf")
    f = _fields(
        conf["clip_by_global_norm"], {"clip_norm": _REQUIRED}, "clip_conf.clip_by_global_norm"
    )
    return by_global_norm(f["clip_norm"])


def from_model_update_conf(
    conf: Mapping, primary_lr: float, secondary_lr: float | None = None
) -> Optimizer:
    """The optimizer described by a legacy ``model_update_conf`` dict and ``primary_lr``.

    An unknown key anywhere raises ``ValueError`` naming it and listing the accepted keys.
    """
    conf = _mapping(conf, "the conf")
    if primary_lr is None:
        raise ValueError("model_update_conf needs config.train.primary_lr(...) to be set")
    primary_lr = float(primary_lr)
    _check_keys(conf, [*_RULES, *_EXTRAS], "model_update_conf")
    rules = [k for k in conf if k in _RULES]
    if len(rules) != 1:
        raise ValueError(
            f"model_update_conf needs exactly one update rule out of {', '.join(_RULES)}; "
            f"got {rules or 'none'}"
        )
    rule = rules[0]
    f = _fields(conf[rule], _RULES[rule], rule)
    sched = scheduler_from_conf(
        primary_lr, conf.get("learning_rate_decay"), conf.get("warmup_conf")
    )
    clip = _clipping(conf.get("clip_conf"))
    decay = _weight_decay(conf.get("weight_decay_conf"))
    return _BUILD[rule](f, sched, clip, decay)


def _rmsprop(f, sched, clip, decay) -> Optimizer:
    if decay:
        warn_once(
            "rmsprop_weight_decay",
            "weight_decay_conf has no effect with rmsprop_conf (as in OneFlow's rmsprop kernel)",
        )
    return RMSProp(sched, f["decay_rate"], f["epsilon"], f["centered"], grad_clipping=clip)


# Each update rule's optimizer from (its fields, scheduler, clipping, weight-decay kwargs).
_BUILD = {
    "naive_conf": lambda f, sched, clip, decay: SGD(
        sched, momentum=0.0, grad_clipping=clip, **decay
    ),
    "momentum_conf": lambda f, sched, clip, decay: SGD(
        sched, momentum=f["beta"], grad_clipping=clip, **decay
    ),
    "rmsprop_conf": _rmsprop,
    "lars_conf": lambda f, sched, clip, decay: LARS(
        sched, f["momentum_beta"], f["epsilon"], f["lars_coefficient"], grad_clipping=clip, **decay
    ),
    "adam_conf": lambda f, sched, clip, decay: Adam(
        sched,
        f["beta1"],
        f["beta2"],
        f["epsilon"],
        f["do_bias_correction"],
        grad_clipping=clip,
        **decay,
    ),
    # As in OneFlow, lazy_adam_conf is adam_update with bias correction; rows are updated
    # lazily under indexed_slices_optimizer_conf, as for every Adam.
    "lazy_adam_conf": lambda f, sched, clip, decay: Adam(
        sched, f["beta1"], f["beta2"], f["epsilon"], True, grad_clipping=clip, **decay
    ),
    "lamb_conf": lambda f, sched, clip, decay: LAMB(
        sched, f["beta1"], f["beta2"], f["epsilon"], grad_clipping=clip, **decay
    ),
}
