"""Update rules against independent NumPy implementations over several scheduled steps."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from flowjob import optimizer as opt

BOUNDS, VALUES = [1, 3], [0.1, 0.05, 0.02]
NSTEPS = 5
RTOL = 2e-5


def ref_lr(step):
    for b, v in zip(BOUNDS, VALUES):
        if step <= b:
            return v
    return VALUES[-1]


def schedule():
    return opt.PiecewiseConstantScheduler(BOUNDS, VALUES)


def make_problem(seed=0):
    rng = np.random.default_rng(seed)
    params = {
        "dense-weight": rng.normal(size=(4, 3)).astype(np.float32),
        "dense-bias": rng.normal(size=(4,)).astype(np.float32),
    }
    grads = [
        {k: rng.normal(size=v.shape).astype(np.float32) for k, v in params.items()}
        for _ in range(NSTEPS)
    ]
    return params, grads


def run(optimizer, params, grads):
    slots = optimizer.init({k: jnp.asarray(v) for k, v in params.items()})
    p = {k: jnp.asarray(v) for k, v in params.items()}
    update = jax.jit(optimizer.update)
    for step, g in enumerate(grads):
        p, slots = update(
            {k: jnp.asarray(v) for k, v in g.items()}, p, slots, jnp.asarray(step, jnp.int64)
        )
    return {k: np.asarray(v) for k, v in p.items()}, {k: np.asarray(v) for k, v in slots.items()}


def assert_close(got, want):
    assert set(got) == set(want)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=RTOL, atol=1e-7, err_msg=k)


def ref_run(params, grads, rule, state_init):
    w = {k: v.astype(np.float64) for k, v in params.items()}
    state = {k: state_init(v) for k, v in w.items()}
    for step, g in enumerate(grads):
        for k in w:
            w[k], state[k] = rule(w[k], g[k].astype(np.float64), state[k], ref_lr(step), step, k)
    return w, state


def test_sgd_plain_momentum_zero_has_no_state():
    params, grads = make_problem()
    sgd = opt.SGD(schedule(), momentum=0)
    got, slots = run(sgd, params, grads)
    want, _ = ref_run(params, grads, lambda w, g, s, lr, t, k: (w - lr * g, s), lambda w: None)
    assert slots == {}
    assert_close(got, want)


def test_sgd_default_momentum_is_0_9_with_momentum_slot():
    params, grads = make_problem(1)
    sgd = opt.SGD(schedule())
    assert sgd.momentum == 0.9
    got, slots = run(sgd, params, grads)

    def rule(w, g, v, lr, t, k):
        v = 0.9 * v - lr * g
        return w + v, v

    want, vel = ref_run(params, grads, rule, np.zeros_like)
    assert_close(got, want)
    assert_close(slots, {f"{k}-momentum": v for k, v in vel.items()})


@pytest.mark.parametrize("momentum", [0.0, 0.8])
def test_sgd_weight_decay_is_decoupled(momentum):
    params, grads = make_problem(2)
    sgd = opt.SGD(schedule(), momentum=momentum, weight_decay=0.1)
    got, _ = run(sgd, params, grads)

    def rule(w, g, v, lr, t, k):
        if momentum == 0:
            return w - lr * (g + 0.1 * w), v
        v = momentum * v - lr * g
        return w + v - lr * 0.1 * w, v

    want, _ = ref_run(params, grads, rule, np.zeros_like)
    assert_close(got, want)


def adam_rule(b1, b2, eps, bias, wd_of):
    def rule(w, g, s, lr, t, k):
        m, v = s
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        if bias:
            lr = lr * np.sqrt(1 - b2 ** (t + 1)) / (1 - b1 ** (t + 1))
        return w - lr * (m / (np.sqrt(v) + eps) + wd_of(k) * w), (m, v)

    return rule


def zeros_pair(w):
    return (np.zeros_like(w), np.zeros_like(w))


def test_adam_default_has_no_bias_correction():
    params, grads = make_problem(3)
    adam = opt.Adam(schedule())
    assert adam.do_bias_correction is False
    got, slots = run(adam, params, grads)
    want, state = ref_run(
        params, grads, adam_rule(0.9, 0.999, 1e-8, False, lambda k: 0.0), zeros_pair
    )
    assert_close(got, want)
    assert_close(
        slots,
        {
            **{f"{k}-m": s[0] for k, s in state.items()},
            **{f"{k}-v": s[1] for k, s in state.items()},
        },
    )


def test_adam_bias_correction_uses_step_plus_one():
    params, grads = make_problem(4)
    got, _ = run(opt.Adam(schedule(), 0.8, 0.99, 1e-6, do_bias_correction=True), params, grads)
    want, _ = ref_run(params, grads, adam_rule(0.8, 0.99, 1e-6, True, lambda k: 0.0), zeros_pair)
    assert_close(got, want)


def test_adamw_excludes_and_includes_patterns():
    params, grads = make_problem(5)
    excl = opt.AdamW(schedule(), weight_decay=0.05, weight_decay_excludes=["bias"])
    got, _ = run(excl, params, grads)
    want, _ = ref_run(
        params,
        grads,
        adam_rule(0.9, 0.999, 1e-8, False, lambda k: 0.0 if "bias" in k else 0.05),
        zeros_pair,
    )
    assert_close(got, want)
    incl = opt.AdamW(schedule(), weight_decay=0.05, weight_decay_includes="weight$")
    assert incl.weight_decay_rate("dense-weight") == 0.05
    assert incl.weight_decay_rate("dense-bias") == 0.0
    assert excl.weight_decay_rate("dense-weight") == 0.05


@pytest.mark.parametrize("centered", [False, True])
def test_rmsprop(centered):
    params, grads = make_problem(6)
    rms = opt.RMSProp(schedule(), decay_rate=0.9, epsilon=1e-6, centered=centered)
    got, slots = run(rms, params, grads)

    def rule(w, g, s, lr, t, k):
        ms, mg = s
        ms = 0.9 * ms + 0.1 * g * g
        denom = ms
        if centered:
            mg = 0.9 * mg + 0.1 * g
            denom = ms - mg * mg
        return w - lr * g / np.sqrt(denom + 1e-6), (ms, mg)

    want, state = ref_run(params, grads, rule, zeros_pair)
    assert_close(got, want)
    names = {"dense-weight-mean_square", "dense-bias-mean_square"}
    if centered:
        names |= {"dense-weight-mean_gradient", "dense-bias-mean_gradient"}
    assert set(slots) == names


def test_lamb_trust_ratio_and_beta_powers():
    params, grads = make_problem(7)
    lamb = opt.LAMB(schedule(), weight_decay=0.01)
    assert lamb.epsilon == 1e-6
    got, slots = run(lamb, params, grads)
    b1, b2, eps = 0.9, 0.999, 1e-6

    def rule(w, g, s, lr, t, k):
        m, v, b1t, b2t = s
        b1t, b2t = b1t * b1, b2t * b2
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        u = (m / (1 - b1t)) / (np.sqrt(v / (1 - b2t)) + eps)
        wn, un = np.linalg.norm(w), np.linalg.norm(u)
        r = wn / un if wn > 0 and un > 0 else 1.0
        return w - lr * r * (u + 0.01 * w), (m, v, b1t, b2t)

    want, state = ref_run(
        params, grads, rule, lambda w: (np.zeros_like(w), np.zeros_like(w), b1, b2)
    )
    assert_close(got, want)
    np.testing.assert_allclose(slots["dense-bias-beta1_t"], [b1 ** (NSTEPS + 1)], rtol=1e-6)
    assert slots["dense-weight-beta2_t"].shape == (1,)


def test_lars_local_learning_rate():
    params, grads = make_problem(8)
    lars = opt.LARS(
        schedule(), momentum_beta=0.9, epsilon=1e-9, lars_coefficient=0.01, weight_decay=0.001
    )
    got, _ = run(lars, params, grads)

    def rule(w, g, mom, lr, t, k):
        # OneFlow v0.4 LarsUpdateKernelUtil: L2 norms, weight decay outside the momentum.
        wn, gn = np.sqrt(np.sum(w * w)), np.sqrt(np.sum(g * g))
        local = lr * (0.01 * wn / (1e-9 + gn + 0.001 * wn) if wn > 0 and gn > 0 else 1.0)
        mom = 0.9 * mom - local * g
        return w + mom - local * 0.001 * w, mom

    want, _ = ref_run(params, grads, rule, np.zeros_like)
    assert_close(got, want)


def test_clip_by_global_norm_scales_all_variables_jointly():
    params, grads = make_problem(9)
    grads = [{k: 10 * v for k, v in g.items()} for g in grads]
    clip = opt.grad_clipping.by_global_norm(2.0)
    got, _ = run(opt.SGD(schedule(), momentum=0, grad_clipping=clip), params, grads)
    w = {k: v.astype(np.float64) for k, v in params.items()}
    for step, g in enumerate(grads):
        norm = np.sqrt(sum(np.sum(x.astype(np.float64) ** 2) for x in g.values()))
        assert norm > 2.0
        for k in w:
            w[k] = w[k] - ref_lr(step) * g[k] * 2.0 / norm
    assert_close(got, w)
    clipped = clip({k: jnp.asarray(v) for k, v in grads[0].items()})
    total = np.sqrt(sum(np.sum(np.asarray(x, np.float64) ** 2) for x in clipped.values()))
    np.testing.assert_allclose(total, 2.0, rtol=1e-5)


def test_clip_leaves_small_gradients_unchanged():
    clip = opt.grad_clipping.by_global_norm(100.0)
    g = {"a": jnp.asarray([3.0, 4.0], jnp.float32)}
    np.testing.assert_array_equal(np.asarray(clip(g)["a"]), [3.0, 4.0])
    with pytest.raises(ValueError, match="clip_norm must be > 0"):
        opt.grad_clipping.by_global_norm(0.0)


def test_loss_scale_factor_does_not_change_updates():
    params, grads = make_problem(10)
    a, _ = run(opt.SGD(schedule(), momentum=0.5), params, grads)
    b, _ = run(opt.SGD(schedule(), loss_scale_factor=1024.0, momentum=0.5), params, grads)
    assert_close(a, b)


def test_update_keeps_dtype_and_untouched_params():
    sgd = opt.SGD(schedule(), momentum=0)
    params = {"w": jnp.ones((2,), jnp.float32), "frozen": jnp.ones((2,), jnp.float32)}
    new, _ = sgd.update({"w": jnp.ones((2,), jnp.float32)}, params, {}, 0)
    assert new["w"].dtype == jnp.float32
    np.testing.assert_allclose(np.asarray(new["w"]), [0.9, 0.9], rtol=1e-6)
    assert new["frozen"] is params["frozen"]


def test_update_errors_name_the_missing_piece():
    adam = opt.Adam(schedule())
    params = {"w": jnp.ones((2,))}
    with pytest.raises(KeyError, match="slot 'w-m' of variable 'w' is missing"):
        adam.update({"w": jnp.ones((2,))}, params, {}, 0)
    with pytest.raises(KeyError, match="unknown parameters \\['x'\\]"):
        adam.update({"x": jnp.ones((2,))}, params, adam.init(params), 0)


def test_constructor_validation():
    with pytest.raises(TypeError, match="lr_scheduler must be"):
        opt.SGD(0.1)
    with pytest.raises(ValueError, match="at most one of weight_decay_includes"):
        opt.AdamW(
            schedule(), weight_decay=0.1, weight_decay_includes=["a"], weight_decay_excludes=["b"]
        )
    with pytest.raises(ValueError, match="beta1 must be in"):
        opt.Adam(schedule(), beta1=1.0)
    with pytest.raises(TypeError, match="grad_clipping must be"):
        opt.Adam(schedule(), grad_clipping=1.0)


def test_variable_names():
    all_vars = ["a-weight", "a-bias", "b-weight"]
    assert opt.Adam(schedule()).variable_names(all_vars) == all_vars
    assert opt.Adam(schedule(), variables=["b-weight"]).variable_names(all_vars) == ["b-weight"]
    with pytest.raises(ValueError, match="\\['c'\\] are not trainable variables"):
        opt.Adam(schedule(), variables=["c"]).variable_names(all_vars)


def test_init_accepts_shape_structs_and_names_slots_like_oneflow():
    spec = {"w": jax.ShapeDtypeStruct((2, 3), jnp.float32)}
    assert list(opt.SGD(schedule()).init(spec)) == ["w-momentum"]
    assert opt.Adam(schedule()).slot_names("w") == ["w-m", "w-v"]
    assert opt.LAMB(schedule()).slot_names("w") == ["w-m", "w-v", "w-beta1_t", "w-beta2_t"]


def test_repr_is_readable():
    clip = opt.grad_clipping.by_global_norm(1)
    text = repr(opt.SGD(schedule(), momentum=0.0, grad_clipping=clip))
    assert text == (
        "SGD(lr_scheduler=PiecewiseConstantScheduler(boundaries=[1, 3], "
        "values=[0.1, 0.05, 0.02]), momentum=0.0, "
        "grad_clipping=grad_clipping.by_global_norm(clip_norm=1.0))"
    )
