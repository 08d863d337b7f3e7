"""OneFlow v0.4 kernel rules found by running real programs, each against NumPy: RMSProp with
``epsilon=0``, ``LazyAdam``, static and dynamic loss scaling (skip on overflow)."""

import numpy as np
import pytest
from test_optimizer_updates import adam_rule, assert_close, make_problem, ref_run, run, schedule

import flowjob as flow
import flowjob.typing as tp
from flowjob import optimizer as opt
from flowjob._src.ops.initializers import constant_initializer

pytestmark = pytest.mark.usefixtures("fresh_session")


def test_rmsprop_accepts_epsilon_zero_and_leaves_never_moved_elements_alone():
    params, grads = make_problem(11)
    for g in grads:  # one element never gets a gradient: OneFlow's kernel gives 0 * inf there
        g["dense-bias"][0] = 0.0
    got, _ = run(opt.RMSProp(schedule(), decay_rate=0.9, epsilon=0.0), params, grads)

    def rule(w, g, ms, lr, t, k):
        ms = 0.9 * ms + 0.1 * g * g
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(ms > 0, g / np.sqrt(ms), 0.0)
        return w - lr * step, ms

    want, _ = ref_run(params, grads, rule, np.zeros_like)
    assert_close(got, want)
    assert got["dense-bias"][0] == params["dense-bias"][0]
    with pytest.raises(ValueError, match="epsilon must be >= 0"):
        opt.RMSProp(schedule(), epsilon=-1.0)


def test_lazy_adam_is_adam_with_bias_correction():
    params, grads = make_problem(12)
    lazy = opt.LazyAdam(schedule(), 0.8, 0.99, 1e-6)
    got, slots = run(lazy, params, grads)
    want, _ = ref_run(
        params,
        grads,
        adam_rule(0.8, 0.99, 1e-6, True, lambda k: 0.0),
        lambda w: (np.zeros_like(w), np.zeros_like(w)),
    )
    assert_close(got, want)
    assert set(slots) == {"dense-weight-m", "dense-weight-v", "dense-bias-m", "dense-bias-v"}
    assert flow.optimizer.LazyAdam is opt.LazyAdam


def test_loss_scale_policy_validation():
    with pytest.raises(ValueError, match="not both"):
        opt.SGD(
            schedule(),
            loss_scale_factor=2.0,
            loss_scale_policy=opt.loss_scale.static_loss_scale(2.0),
        )
    with pytest.raises(TypeError, match="loss_scale_policy must be"):
        opt.Adam(schedule(), loss_scale_policy=2.0)
    with pytest.raises(ValueError, match="multiplier must be > 1"):
        opt.loss_scale.dynamic_loss_scale(multiplier=1.0)


def scaled_job(policy, name="scaled"):
    """loss = sum(x * w) with w = 1 (3,): the gradient is x / 3 after OneFlow's 1/N."""

    def job(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(3,), initializer=constant_initializer(1.0))
        loss = x * w
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.1]),
            momentum=0.9,
            loss_scale_policy=policy,
        ).minimize(loss)
        return loss

    job.__name__ = job.__qualname__ = name
    return flow.global_function(type="train")(job)


def test_static_loss_scale_does_not_change_finite_updates():
    job = scaled_job(opt.loss_scale.static_loss_scale(1024.0))
    x = np.array([1.0, -2.0, 3.0], np.float32)
    job(x)
    job(x)
    g, v, w = x / 3, np.zeros(3), np.ones(3)
    for _ in range(2):
        v = 0.9 * v - 0.1 * g
        w = w + v
    np.testing.assert_allclose(flow.get_all_variables()["w"].numpy(), w, rtol=1e-6)


def numpy_dynamic(xs, initial, period, multiplier):
    """OneFlow's dynamic_loss_scale_schedule kernel plus skip_if on the momentum update."""
    scale, good = initial, 0
    w, v = np.ones(3, np.float64), np.zeros(3, np.float64)
    scales = []
    for x in xs:
        with np.errstate(over="ignore"):  # float32 gradients, as on the device
            seeded = np.float32(x) * np.float32(scale)
        finite = bool(np.all(np.isfinite(seeded)))
        if finite:
            v = 0.9 * v - 0.1 * (x / 3)
            w = w + v
            good += 1
            if good >= period:
                scale, good = min(scale * multiplier, float(np.finfo(np.float32).max)), 0
        else:
            scale, good = max(scale / multiplier, 1.0), 0
        scales.append(scale)
    return w, v, scales


def test_dynamic_loss_scale_skips_overflowing_steps_and_adapts_the_scale():
    policy = opt.loss_scale.dynamic_loss_scale(
        initial_loss_scale=2.0**30, increment_period=2, multiplier=1024.0
    )
    job = scaled_job(policy, name="dyn")
    big = np.array([1e33, 1.0, -1e33], np.float32)  # * 2^30 overflows, * 2^20 too, * 2^10 not
    small = np.array([1.0, -2.0, 3.0], np.float32)
    xs = [big, big, big, small, small, small]
    got_scales = []
    state_scale = "System-Train-DynamicLossScale-dyn-LossScale"
    for x in xs:
        job(x)
        got_scales.append(float(flow.get_all_variables()[state_scale].numpy()[0]))
    w, v, scales = numpy_dynamic(xs, 2.0**30, 2, 1024.0)
    assert scales[:3] == [2.0**20, 2.0**10, 2.0**10]  # two skips, then one good step
    assert got_scales == pytest.approx(scales)
    variables = flow.get_all_variables()
    np.testing.assert_allclose(variables["w"].numpy(), w, rtol=1e-5)
    np.testing.assert_allclose(variables["w-momentum"].numpy(), v, rtol=1e-5)
    assert "System-Train-DynamicLossScale-dyn-GoodStepCounter" in variables


def embedding_job(optimizer, indexed_slices=True):
    config = flow.function_config()
    if indexed_slices:
        config.indexed_slices_optimizer_conf(dict(include_op_names=dict(op_name=["embeddings"])))

    @flow.global_function(type="train", function_config=config)
    def job(ids: tp.Numpy.Placeholder((4,), dtype=flow.int32)) -> tp.Numpy:
        table = flow.get_variable("embeddings", shape=(6, 2), initializer=constant_initializer(1.0))
        loss = flow.math.reduce_sum(flow.gather(table * 2.0, ids) * WEIGHTS)
        optimizer.minimize(loss)
        return loss

    return job


WEIGHTS = np.arange(8, dtype=np.float32).reshape(4, 2) - 3.0
IDS = [
    np.array([0, 2, 2, 5], np.int32),
    np.array([1, 1, 3, 0], np.int32),
    np.array([4, 4, 4, 4], np.int32),
]


def row_grads(ids):
    """Summed per-row gradient of sum(gather(2 * table, ids) * WEIGHTS), OneFlow's 1/N = 1."""
    grad = np.zeros((6, 2))
    np.add.at(grad, ids, 2.0 * WEIGHTS)
    return grad


@pytest.mark.parametrize("indexed_slices", [True, False])
def test_indexed_slices_adam_updates_only_gathered_rows(indexed_slices):
    lr, b1, b2, eps = 0.1, 0.9, 0.999, 1e-8
    job = embedding_job(opt.Adam(opt.PiecewiseConstantScheduler([], [lr])), indexed_slices)
    w, m, v = np.ones((6, 2)), np.zeros((6, 2)), np.zeros((6, 2))
    for ids in IDS:
        job(ids)
        g = row_grads(ids)
        touched = np.isin(np.arange(6), ids)[:, None] if indexed_slices else np.ones((6, 1), bool)
        new_m, new_v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
        new_w = w - lr * new_m / (np.sqrt(new_v) + eps)
        w, m, v = (np.where(touched, a, b) for a, b in ((new_w, w), (new_m, m), (new_v, v)))
    got = flow.get_all_variables()
    np.testing.assert_allclose(got["embeddings"].numpy(), w, rtol=1e-5)
    np.testing.assert_allclose(got["embeddings-m"].numpy(), m, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got["embeddings-v"].numpy(), v, rtol=1e-5, atol=1e-7)


def test_indexed_slices_sgd_weight_decay_and_momentum_stay_on_gathered_rows():
    lr, beta, wd = 0.1, 0.9, 0.01
    job = embedding_job(
        opt.SGD(opt.PiecewiseConstantScheduler([], [lr]), momentum=beta, weight_decay=wd)
    )
    w, mom = np.ones((6, 2)), np.zeros((6, 2))
    for ids in IDS:
        job(ids)
        touched = np.isin(np.arange(6), ids)[:, None]
        new_mom = beta * mom - lr * row_grads(ids)
        new_w = w + new_mom - lr * wd * w
        w, mom = np.where(touched, new_w, w), np.where(touched, new_mom, mom)
    got = flow.get_all_variables()
    np.testing.assert_allclose(got["embeddings"].numpy(), w, rtol=1e-5)
    np.testing.assert_allclose(got["embeddings-momentum"].numpy(), mom, rtol=1e-5, atol=1e-7)


def test_sgd_momentum_none_is_plain_sgd():
    params, grads = make_problem(13)
    sgd = opt.SGD(schedule(), momentum=None)
    got, slots = run(sgd, params, grads)
    want, _ = ref_run(params, grads, lambda w, g, s, lr, t, k: (w - lr * g, s), np.zeros_like)
    assert_close(got, want)
    assert slots == {}
