"""Learning-rate schedules against plain-Python formulas (OneFlow's kernel, in float64)."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from flowjob import optimizer as opt
from flowjob.optimizer import warmup

STEPS = range(0, 40)


def lrs(sched, steps=STEPS):
    fn = jax.jit(sched)
    return np.array([float(fn(jnp.asarray(s, jnp.int64))) for s in steps])


def ref_piecewise(step, boundaries, values):
    for b, v in zip(boundaries, values):
        if step <= b:
            return v
    return values[-1]


def check(sched, ref, steps=STEPS):
    got = lrs(sched, steps)
    want = np.array([ref(s) for s in steps])
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-9)


def test_piecewise_constant_inclusive_boundaries_and_first_step_zero():
    sched = opt.PiecewiseConstantScheduler([3, 10], [0.1, 0.01, 0.001])
    check(sched, lambda s: ref_piecewise(s, [3, 10], [0.1, 0.01, 0.001]))
    got = lrs(sched, [0, 3, 4, 10, 11])
    np.testing.assert_allclose(got, [0.1, 0.1, 0.01, 0.01, 0.001], rtol=1e-6)
    assert sched.base_lr == 0.1


def test_numpy_integer_boundaries_and_steps_are_accepted():
    sched = opt.PiecewiseConstantScheduler(np.array([3, 10]), [0.1, 0.01, 0.001])
    check(sched, lambda s: ref_piecewise(s, [3, 10], [0.1, 0.01, 0.001]))
    assert opt.CosineScheduler(0.1, np.int64(5)).steps == 5
    with pytest.raises(TypeError, match="boundaries must be ints, got 2.5"):
        opt.PiecewiseConstantScheduler([2.5], [0.1, 0.2])


def test_piecewise_constant_empty_is_constant():
    check(opt.PiecewiseConstantScheduler([], [0.25]), lambda s: 0.25)


def test_piecewise_constant_length_mismatch_names_both_counts():
    with pytest.raises(ValueError, match="2 boundaries and 2 values"):
        opt.PiecewiseConstantScheduler([1, 2], [0.1, 0.2])


def test_piecewise_scaling():
    sched = opt.PiecewiseScalingScheduler(0.2, [5, 10], [0.5, 0.1])
    check(sched, lambda s: 0.2 * ref_piecewise(s, [5, 10], [1.0, 0.5, 0.1]))
    single = opt.PiecewiseScalingScheduler(0.2, [5, 10], 0.3)
    check(single, lambda s: 0.2 * ref_piecewise(s, [5, 10], [1.0, 0.3, 0.3]))


@pytest.mark.parametrize("alpha", [0.0, 0.2])
def test_cosine(alpha):
    def ref(s):
        cur = min(s, 25)
        return 0.1 * ((1 - alpha) * 0.5 * (1 + math.cos(math.pi * cur / 25)) + alpha)

    check(opt.CosineScheduler(0.1, 25, alpha=alpha), ref)


@pytest.mark.parametrize("cycle", [False, True])
@pytest.mark.parametrize("power", [1.0, 2.0])
def test_polynomial(cycle, power):
    base, end, decay = 0.05, 0.001, 7

    def ref(s):
        if cycle:
            cur = 1.0 if s == 0 else float(s)
            d = decay * math.ceil(cur / decay)
        else:
            cur, d = min(float(s), decay), decay
        return (base - end) * (1 - cur / d) ** power + end

    check(opt.PolynomialScheduler(base, decay, end, power, cycle), ref)


def test_polynomial_misspelling_warns_once_and_works(capsys):
    with pytest.warns(FutureWarning, match="PolynomialScheduler"):
        sched = opt.PolynomialSchduler(0.1, 10)
    assert "WARNING:" in capsys.readouterr().err
    check(sched, lambda s: (0.1 - 1e-4) * (1 - min(s, 10) / 10) + 1e-4)


def test_linear_cosine():
    base, decay, periods, alpha, beta = 0.3, 12, 0.5, 0.1, 0.001

    def ref(s):
        cur = min(s, decay)
        linear = (decay - cur) / decay
        cosine = 0.5 * (1 + math.cos(2 * math.pi * periods * cur / decay))
        return base * ((alpha + linear) * cosine + beta)

    check(opt.LinearCosineScheduler(base, decay, periods, alpha, beta), ref)


@pytest.mark.parametrize("staircase", [False, True])
def test_exponential_inverse_time_natural_exp(staircase):
    def p(s):
        r = s / 6
        return math.floor(r) if staircase else r

    check(opt.ExponentialScheduler(0.1, 6, 0.7, staircase), lambda s: 0.1 * 0.7 ** p(s))
    check(opt.InverseTimeScheduler(0.1, 6, 0.7, staircase), lambda s: 0.1 / (1 + 0.7 * p(s)))
    check(opt.NaturalExpScheduler(0.1, 6, 0.7, staircase), lambda s: 0.1 * math.exp(-0.7 * p(s)))


def test_constant_warmup_replaces_decay_without_shifting_it():
    sched = opt.CosineScheduler(0.1, 20, warmup=warmup.constant(5, 0.1))

    def ref(s):
        if s < 5:
            return 0.1 * 0.1
        return 0.1 * 0.5 * (1 + math.cos(math.pi * min(s, 20) / 20))

    check(sched, ref)


def test_linear_warmup_matches_kernel_formula():
    sched = opt.PiecewiseConstantScheduler([], [0.01], warmup=warmup.linear(10, 0.1))

    def ref(s):
        if s < 10:
            return 0.01 * (0.1 + (1 - 0.1) * s / 10)
        return 0.01

    check(sched, ref)


def test_warmup_of_piecewise_constant_scales_first_value():
    sched = opt.PiecewiseConstantScheduler([2, 8], [1.0, 0.5, 0.25], warmup=warmup.constant(4, 0.5))
    check(sched, lambda s: 0.5 if s < 4 else ref_piecewise(s, [2, 8], [1.0, 0.5, 0.25]))


def test_warmup_validation_follows_kernel_checks():
    with pytest.raises(ValueError, match="multiplier must be in \\(0, 1\\)"):
        warmup.constant(3, 1.0)
    with pytest.raises(ValueError, match="start_multiplier must be in \\[0, 1\\)"):
        warmup.linear(3, -0.1)
    with pytest.raises(ValueError, match="steps must be a non-negative int"):
        warmup.linear(-1, 0.0)
    with pytest.raises(TypeError, match="warmup must be"):
        opt.CosineScheduler(0.1, 10, warmup=5)


def test_step_forms_int32_int64_and_shape_1_agree():
    sched = opt.ExponentialScheduler(0.1, 3, 0.5)
    a = float(sched(jnp.int32(7)))
    b = float(sched(jnp.asarray(7, jnp.int64)))
    c = float(sched(jnp.asarray([7], jnp.int64)))
    d = float(sched(7))
    assert a == b == c == d
    assert sched(7).dtype == jnp.float32
    with pytest.raises(TypeError, match="step must be an integer"):
        sched(jnp.float32(1.0))


def test_invalid_decay_steps_named():
    with pytest.raises(ValueError, match="CosineScheduler: steps must be a positive int"):
        opt.CosineScheduler(0.1, 0)


def test_custom_scheduler_calls_function_and_rejects_names():
    sched = opt.CustomScheduler(lambda step: 0.5 / (1.0 + step.astype(jnp.float32)))
    check(sched, lambda s: 0.5 / (1 + s))
    with pytest.raises(TypeError, match="step -> learning rate"):
        opt.CustomScheduler("lr_blob/out")


def test_repr_and_confs_are_readable():
    sched = opt.CosineScheduler(0.1, 10, alpha=0.1, warmup=warmup.linear(2, 0.0))
    assert repr(sched) == (
        "CosineScheduler(base_lr=0.1, steps=10, alpha=0.1, "
        "warmup=warmup.linear(steps=2, start_multiplier=0.0))"
    )
    assert sched.learning_rate_decay_conf == {"cosine_conf": {"decay_batches": 10, "alpha": 0.1}}
    assert sched.warmup_conf == {"linear_conf": {"warmup_batches": 2, "start_multiplier": 0.0}}
