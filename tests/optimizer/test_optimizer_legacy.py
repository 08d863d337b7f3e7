"""Legacy ``model_update_conf`` dicts: same updates as the new API, clear errors."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from flowjob import optimizer as opt
from flowjob.optimizer import from_model_update_conf, warmup


def trajectory(optimizer, steps=6, seed=0):
    rng = np.random.default_rng(seed)
    params = {
        "fc-weight": jnp.asarray(rng.normal(size=(3, 2)), jnp.float32),
        "fc-bias": jnp.asarray(rng.normal(size=(3,)), jnp.float32),
    }
    slots = optimizer.init(params)
    update = jax.jit(optimizer.update)
    out = []
    for step in range(steps):
        grads = {k: jnp.asarray(rng.normal(size=v.shape), jnp.float32) for k, v in params.items()}
        params, slots = update(grads, params, slots, jnp.asarray(step, jnp.int64))
        out.append({k: np.asarray(v) for k, v in params.items()})
    return out, slots


def assert_same(a, b):
    (ta, sa), (tb, sb) = trajectory(a), trajectory(b)
    assert set(sa) == set(sb)
    for pa, pb in zip(ta, tb):
        for k in pa:
            np.testing.assert_allclose(pa[k], pb[k], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(
    "conf, new",
    [
        ({"naive_conf": {}}, lambda s: opt.SGD(s, momentum=0)),
        ({"momentum_conf": {"beta": 0.875}}, lambda s: opt.SGD(s, momentum=0.875)),
        ({"momentum_conf": {}}, lambda s: opt.SGD(s, momentum=0.9)),
        ({"adam_conf": {"epsilon": 1e-6}}, lambda s: opt.Adam(s, epsilon=1e-6)),
        (
            {"adam_conf": {"do_bias_correction": True}},
            lambda s: opt.Adam(s, do_bias_correction=True),
        ),
        ({"lazy_adam_conf": {}}, lambda s: opt.Adam(s, do_bias_correction=True)),
        ({"rmsprop_conf": {"centered": True}}, lambda s: opt.RMSProp(s, centered=True)),
        ({"lamb_conf": {"epsilon": 1e-6}}, lambda s: opt.LAMB(s, epsilon=1e-6)),
        ({"lars_conf": {"lars_coefficient": 0.01}}, lambda s: opt.LARS(s, lars_coefficient=0.01)),
    ],
)
def test_update_rules_match_new_api(conf, new):
    legacy = from_model_update_conf(conf, primary_lr=0.05)
    assert_same(legacy, new(opt.PiecewiseConstantScheduler([], [0.05])))


def test_docs_example_momentum_warmup_cosine():
    conf = {
        "momentum_conf": {"beta": 0.875},
        "warmup_conf": {"linear_conf": {"warmup_batches": 3, "start_multiplier": 0}},
        "learning_rate_decay": {"cosine_conf": {"decay_batches": 10}},
    }
    legacy = from_model_update_conf(conf, 0.1)
    new = opt.SGD(opt.CosineScheduler(0.1, 10, warmup=warmup.linear(3, 0.0)), momentum=0.875)
    assert_same(legacy, new)
    lr = [float(legacy.lr(jnp.asarray(s, jnp.int64))) for s in range(12)]
    want = [
        0.1 * s / 3 if s < 3 else 0.1 * 0.5 * (1 + math.cos(math.pi * min(s, 10) / 10))
        for s in range(12)
    ]
    np.testing.assert_allclose(lr, want, rtol=1e-6, atol=1e-9)


def test_docs_example_adam_polynomial_clip():
    conf = {
        "adam_conf": {"epsilon": 1e-6},
        "learning_rate_decay": {
            "polynomial_conf": {"decay_batches": 100, "end_learning_rate": 0.0}
        },
        "warmup_conf": {"linear_conf": {"warmup_batches": 2, "start_multiplier": 0}},
        "clip_conf": {"clip_by_global_norm": {"clip_norm": 1.0}},
    }
    legacy = from_model_update_conf(conf, 0.01)
    new = opt.Adam(
        opt.PolynomialScheduler(0.01, 100, 0.0, warmup=warmup.linear(2, 0.0)),
        epsilon=1e-6,
        grad_clipping=opt.grad_clipping.by_global_norm(1.0),
    )
    assert_same(legacy, new)


def test_weight_decay_conf_patterns():
    conf = {
        "adam_conf": {},
        "weight_decay_conf": {"weight_decay_rate": 0.01, "excludes": {"pattern": ["bias"]}},
    }
    legacy = from_model_update_conf(conf, 0.01)
    assert legacy.weight_decay_rate("fc-bias") == 0.0
    assert legacy.weight_decay_rate("fc-weight") == 0.01
    new = opt.AdamW(
        opt.PiecewiseConstantScheduler([], [0.01]),
        weight_decay=0.01,
        weight_decay_excludes=["bias"],
    )
    assert_same(legacy, new)


@pytest.mark.parametrize(
    "decay, new",
    [
        (
            {"exponential_conf": {"decay_batches": 2, "decay_rate": 0.5, "staircase": True}},
            lambda: opt.ExponentialScheduler(0.2, 2, 0.5, staircase=True),
        ),
        (
            {"inverse_time_conf": {"decay_batches": 2, "decay_rate": 0.5}},
            lambda: opt.InverseTimeScheduler(0.2, 2, 0.5),
        ),
        (
            {"natural_exp_conf": {"decay_batches": 2, "decay_rate": 0.5}},
            lambda: opt.NaturalExpScheduler(0.2, 2, 0.5),
        ),
        ({"linear_cosine_conf": {"decay_batches": 5}}, lambda: opt.LinearCosineScheduler(0.2, 5)),
        (
            {"piecewise_scaling_conf": {"boundaries": [2, 4], "scales": [1.0, 0.5, 0.1]}},
            lambda: opt.PiecewiseScalingScheduler(0.2, [2, 4], [0.5, 0.1]),
        ),
    ],
)
def test_decay_confs_match_schedulers(decay, new):
    legacy = opt.scheduler_from_conf(0.2, decay)
    want = new()
    for step in range(10):
        s = jnp.asarray(step, jnp.int64)
        assert float(legacy(s)) == pytest.approx(float(want(s)), rel=1e-7)


def test_piecewise_constant_values_ignore_primary_lr_but_warmup_scales_it():
    sched = opt.scheduler_from_conf(
        1.0,
        {"piecewise_constant_conf": {"boundaries": [5], "values": [0.3, 0.03]}},
        {"constant_conf": {"warmup_batches": 2, "multiplier": 0.5}},
    )
    got = [float(sched(jnp.asarray(s, jnp.int64))) for s in range(8)]
    np.testing.assert_allclose(got, [0.5, 0.5, 0.3, 0.3, 0.3, 0.3, 0.03, 0.03], rtol=1e-6)


def test_unknown_top_level_key_is_named_with_accepted_keys():
    with pytest.raises(ValueError) as info:
        from_model_update_conf({"sgd_conf": {}}, 0.1)
    msg = str(info.value)
    assert "'sgd_conf'" in msg and "naive_conf" in msg and "weight_decay_conf" in msg


def test_unknown_nested_key_is_named_with_path():
    with pytest.raises(
        ValueError, match="unknown key 'momentum' in momentum_conf; accepted keys: beta"
    ):
        from_model_update_conf({"momentum_conf": {"momentum": 0.9}}, 0.1)
    with pytest.raises(ValueError, match="'step_conf' in learning_rate_decay"):
        from_model_update_conf({"naive_conf": {}, "learning_rate_decay": {"step_conf": {}}}, 0.1)


def test_rule_count_and_required_fields():
    with pytest.raises(ValueError, match="exactly one update rule"):
        from_model_update_conf({"naive_conf": {}, "adam_conf": {}}, 0.1)
    with pytest.raises(ValueError, match="exactly one update rule"):
        from_model_update_conf({"clip_conf": {"clip_by_global_norm": {"clip_norm": 1}}}, 0.1)
    with pytest.raises(ValueError, match="cosine_conf needs 'decay_batches'"):
        from_model_update_conf({"naive_conf": {}, "learning_rate_decay": {"cosine_conf": {}}}, 0.1)
    with pytest.raises(ValueError, match="primary_lr"):
        from_model_update_conf({"naive_conf": {}}, None)
    with pytest.raises(TypeError, match="momentum_conf must be a dict"):
        from_model_update_conf({"momentum_conf": 0.9}, 0.1)


def test_rmsprop_weight_decay_is_ignored_with_warning():
    conf = {"rmsprop_conf": {}, "weight_decay_conf": {"weight_decay_rate": 0.1}}
    with pytest.warns(FutureWarning, match="no effect with rmsprop_conf"):
        legacy = from_model_update_conf(conf, 0.01)
    assert_same(legacy, opt.RMSProp(opt.PiecewiseConstantScheduler([], [0.01])))


def test_secondary_lr_has_no_effect():
    a = from_model_update_conf({"naive_conf": {}}, 0.1, secondary_lr=0.5)
    b = from_model_update_conf({"naive_conf": {}}, 0.1)
    assert_same(a, b)
