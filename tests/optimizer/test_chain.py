"""The optimizer chain: each link alone against NumPy, the Optax links against OneFlow v0.4's
kernel formulas, and a whole job chain against a hand-written NumPy version of OneFlow's
gradient path (1/N, loss-scale undo, regularizer, clipping, Adam with weight decay)."""

import logging

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from flowjob import optimizer as opt
from flowjob import regularizers
from flowjob._src.optimizer import transforms as T

rng = np.random.default_rng(3)
W = {"a": rng.normal(size=(5, 3)).astype(np.float32), "b": rng.normal(size=(3,)).astype(np.float32)}
G = {"a": rng.normal(size=(5, 3)).astype(np.float32), "b": rng.normal(size=(3,)).astype(np.float32)}


def run_link(tx, grads=G, params=W, **extra):
    state = tx.init(params)
    updates, new_state = tx.update(
        {k: jnp.asarray(v) for k, v in grads.items()},
        state,
        {k: jnp.asarray(v) for k, v in params.items()},
        **extra,
    )
    return {k: np.asarray(v) for k, v in updates.items()}, new_state


def close(got, want, rtol=1e-6):
    assert set(got) == set(want)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=rtol, atol=1e-7, err_msg=k)


def test_scale_by_loss_count_and_undo_loss_scale():
    got, _ = run_link(T.scale_by_loss_count(), loss_count=8)
    close(got, {k: g / 8 for k, g in G.items()})
    got, _ = run_link(T.scale_by_loss_count(), loss_count=jnp.float32(3.0))
    close(got, {k: g / 3 for k, g in G.items()})
    got, _ = run_link(T.undo_loss_scale(), loss_scale=jnp.float32(1024.0))
    close(got, {k: g / 1024 for k, g in G.items()})
    got, _ = run_link(T.undo_loss_scale())  # no loss scaling: as is
    close(got, G, rtol=0)


def test_mean_over_devices_averages_along_the_named_axis():
    stacked = {k: np.stack([g, 3 * g]) for k, g in G.items()}  # two "devices"
    tx = T.mean_over_devices()
    got = jax.vmap(lambda g: tx.update(g, {}, None, device_axis="d")[0], axis_name="d")(
        {k: jnp.asarray(v) for k, v in stacked.items()}
    )
    for k, g in G.items():
        np.testing.assert_allclose(np.asarray(got[k]), np.stack([2 * g, 2 * g]), rtol=1e-6)
    close(run_link(tx)[0], G, rtol=0)


def test_add_regularization_is_l1_sign_plus_l2_w_on_regularized_variables_only():
    w = dict(W, b=np.array([0.0, -2.0, 3.0], np.float32))  # sign(0) = 0, as OneFlow's kernel
    got, _ = run_link(T.add_regularization({"b": regularizers.l1_l2(0.25, 0.5)}), params=w)
    close(got, {"a": G["a"], "b": G["b"] + 0.25 * np.sign(w["b"]) + 0.5 * w["b"]})


def test_optax_clip_by_global_norm_is_oneflows_rule():
    # OneFlow v0.4 (autograd.cpp ClipGradientByGlobalNorm) scales every gradient by
    # min(rsqrt(sum g^2), 1 / clip_norm): for clip_norm = 1, the rule flowjob documents.
    norm = np.sqrt(sum(np.sum(g.astype(np.float64) ** 2) for g in G.values()))
    assert norm > 1
    got, _ = run_link(opt.grad_clipping.by_global_norm(1.0).transformation())
    close(got, {k: g * min(1 / norm, 1.0) for k, g in G.items()}, rtol=1e-5)
    # Any clip_norm: g * clip_norm / max(norm, clip_norm); below the norm nothing changes.
    got, _ = run_link(optax.clip_by_global_norm(2.0))
    close(got, {k: g * 2.0 / max(norm, 2.0) for k, g in G.items()}, rtol=1e-5)
    close(run_link(optax.clip_by_global_norm(float(10 * norm)))[0], G, rtol=0)


def test_optax_decay_and_moments_are_the_update_kernels_terms():
    # model_update_kernel_util.h: model_diff + weight_decay * model; beta * m + (1 - beta) * g.
    sgd = opt.SGD(
        opt.PiecewiseConstantScheduler([], [0.1]),
        momentum=0.0,
        weight_decay=0.01,
        weight_decay_excludes=["^b$"],
    )
    got, _ = run_link(sgd.transformation(), learning_rate=1.0, step=jnp.int64(0))
    close(got, {"a": -(G["a"] + 0.01 * W["a"]), "b": -G["b"]})
    m = rng.normal(size=(5, 3)).astype(np.float32)
    np.testing.assert_allclose(
        np.asarray(optax.tree.update_moment(G["a"], m, 0.9, 1)),
        0.9 * m + (1 - 0.9) * G["a"],
        rtol=1e-6,
    )
    np.testing.assert_allclose(
        np.asarray(optax.tree.update_moment(G["a"], m, 0.999, 2)),
        0.999 * m + (1 - 0.999) * G["a"] * G["a"],
        rtol=1e-6,
    )


def test_scale_by_learning_rate_with_an_adjusted_rate():
    got, _ = run_link(T.scale_by_learning_rate(), learning_rate=0.5, step=jnp.int64(0))
    close(got, {k: -0.5 * g for k, g in G.items()})
    got, _ = run_link(
        T.scale_by_learning_rate(lambda lr, step: lr * (step + 1)),
        learning_rate=0.5,
        step=jnp.int64(3),
    )
    close(got, {k: -2.0 * g for k, g in G.items()})


def test_per_variable_names_slots_like_oneflow_and_keeps_their_dtype():
    def rule(name, g, w, own, lr, step):
        return -lr * g, {"acc": own["acc"] + g}

    tx = T.per_variable(lambda p: {"acc": jnp.zeros(p.shape, jnp.float16)}, rule)
    got, state = run_link(tx, learning_rate=0.1, step=jnp.int64(0))
    close(got, {k: -0.1 * g for k, g in G.items()})
    assert list(state) == ["a-acc", "b-acc"] and state["a-acc"].dtype == jnp.float16
    np.testing.assert_allclose(np.asarray(state["b-acc"], np.float32), G["b"], rtol=1e-3)


def test_keep_untouched_rows_masks_updates_and_slots_of_rows_not_gathered():
    sgd = opt.SGD(opt.PiecewiseConstantScheduler([], [0.1]), momentum=0.9)
    tx = T.keep_untouched_rows(sgd.transformation(), sgd.slot_names)
    params = {"a": jnp.asarray(W["a"])}
    state = T.unflatten_state(tx.init(params), {"a-momentum": jnp.ones((5, 3), jnp.float32)})
    rows = {"a": jnp.asarray([[0, 3], [3, 9]])}  # 9 is out of range: touches nothing
    updates, new = tx.update(
        {"a": jnp.asarray(G["a"])}, state, params, learning_rate=0.1, step=jnp.int64(0), rows=rows
    )
    dense = 0.9 * 1.0 - 0.1 * G["a"]
    touched = np.isin(np.arange(5), [0, 3])[:, None]
    np.testing.assert_allclose(np.asarray(updates["a"]), np.where(touched, dense, 0.0), rtol=1e-6)
    np.testing.assert_allclose(
        np.asarray(T.flatten_state(new)["a-momentum"]), np.where(touched, dense, 1.0), rtol=1e-6
    )


def test_skip_if_non_finite_keeps_inner_state_and_moves_the_dynamic_scale():
    policy = opt.loss_scale.dynamic_loss_scale(initial_loss_scale=8.0, increment_period=2)
    sgd = opt.SGD(opt.PiecewiseConstantScheduler([], [0.1]), momentum=0.5)
    tx = T.skip_if_non_finite(sgd.transformation(), policy, "job")
    scale, counter = policy.names("job")
    state = tx.init(W)
    extra = {"learning_rate": 0.1, "step": jnp.int64(0)}
    up, state = tx.update({k: jnp.asarray(v) for k, v in G.items()}, state, W, **extra)
    close({k: np.asarray(v) for k, v in up.items()}, {k: -0.1 * g for k, g in G.items()})
    assert int(state[0][counter][0]) == 1 and float(state[0][scale][0]) == 8.0
    bad = dict(G, b=np.array([np.inf, 0, 0], np.float32))
    up2, state2 = tx.update({k: jnp.asarray(v) for k, v in bad.items()}, state, W, **extra)
    assert all(not np.any(np.asarray(u)) for u in up2.values())  # zero updates: skipped
    momentum = {k: np.asarray(v) for k, v in T.flatten_state(state[1]).items()}
    assert set(momentum) == {"a-momentum", "b-momentum"} and np.any(momentum["a-momentum"])
    close({k: np.asarray(v) for k, v in T.flatten_state(state2[1]).items()}, momentum, rtol=0)
    assert int(state2[0][counter][0]) == 0 and float(state2[0][scale][0]) == 4.0


def test_state_names_need_named_leaves():
    with pytest.raises(TypeError, match="not named"):
        T.state_names((jnp.zeros(2),))


def reference_oneflow_adam_job(
    params, raw_grads, *, n, loss_scale, l1, l2, clip, wd, lr, b1=0.9, b2=0.999, eps=1e-8
):
    """OneFlow v0.4's optimizer pass + adam_update kernel, written out in float64."""
    w = {k: v.astype(np.float64) for k, v in params.items()}
    m = {k: np.zeros_like(v) for k, v in w.items()}
    v = {k: np.zeros_like(x) for k, x in w.items()}
    for t, raw in enumerate(raw_grads):
        g = {k: raw[k].astype(np.float64) * loss_scale / n / loss_scale for k in w}
        g["a"] = g["a"] + l1 * np.sign(w["a"]) + l2 * w["a"]  # only "a" is regularized
        norm = np.sqrt(sum(np.sum(x * x) for x in g.values()))
        g = {k: x * clip / max(norm, clip) for k, x in g.items()}
        lr_t = lr * np.sqrt(1 - b2 ** (t + 1)) / (1 - b1 ** (t + 1))
        for k in w:
            m[k] = b1 * m[k] + (1 - b1) * g[k]
            v[k] = b2 * v[k] + (1 - b2) * g[k] * g[k]
            w[k] = w[k] - lr_t * (m[k] / (np.sqrt(v[k]) + eps) + wd * w[k])
    return w, m, v


def test_train_update_chain_matches_oneflow_formula_written_out():
    steps = [
        {k: rng.normal(size=v.shape).astype(np.float32) * 40 for k, v in W.items()}
        for _ in range(4)
    ]
    adam = opt.Adam(
        opt.PiecewiseConstantScheduler([], [0.01]),
        do_bias_correction=True,
        weight_decay=0.05,
        grad_clipping=opt.grad_clipping.by_global_norm(3.0),
        loss_scale_factor=256.0,
    )
    update = opt.TrainUpdate(adam, "job", W, {"a": regularizers.l1_l2(0.01, 0.02)})
    assert update.state_names == ["a-m", "a-v", "b-m", "b-v"]
    params = {k: jnp.asarray(v) for k, v in W.items()}
    state = update.initial_state(W)
    call = jax.jit(update, static_argnames=("loss_count",))
    for t, raw in enumerate(steps):
        scale = update.loss_scale(state)
        seeded = {k: jnp.asarray(g) * scale for k, g in raw.items()}  # d(scale * sum loss)
        params, state = call(seeded, params, state, step=t, loss_count=6, loss_scale=scale)
    w, m, v = reference_oneflow_adam_job(
        W, steps, n=6, loss_scale=256.0, l1=0.01, l2=0.02, clip=3.0, wd=0.05, lr=0.01
    )
    close({k: np.asarray(x) for k, x in params.items()}, w, rtol=2e-5)
    close({k: np.asarray(state[f"{k}-m"]) for k in W}, m, rtol=2e-5)
    close({k: np.asarray(state[f"{k}-v"]) for k in W}, v, rtol=2e-5)


@pytest.mark.parametrize("momentum, compiled", [(0.0, 0), (0.9, 1)])
def test_train_update_traces_the_slots_init_once_and_compiles_it_only_with_slots(
    monkeypatch, caplog, momentum, compiled
):
    """The chain's init is traced once (its output shapes name the slots) and compiled into
    one program only when there are slots: plain SGD's empty state compiles nothing."""
    sgd = opt.SGD(opt.PiecewiseConstantScheduler([], [0.1]), momentum=momentum)
    traced, make = [], sgd.transformation

    def counted(*args, **kwargs):
        chain = make(*args, **kwargs)

        def init(params):
            traced.append(params)
            return chain.init(params)

        return chain._replace(init=init)

    monkeypatch.setattr(sgd, "transformation", counted)
    with caplog.at_level(logging.WARNING), jax.log_compiles():
        update = opt.TrainUpdate(sgd, "job", W)
        initial = update.initial_state(W)
    compiles = [r for r in caplog.records if r.getMessage().startswith("Compiling ")]
    assert len(traced) == 1 and len(compiles) == compiled, compiles
    want = {f"{k}-momentum": np.zeros_like(v) for k, v in W.items()} if momentum else {}
    assert update.state_names == list(want)
    close({k: np.asarray(v) for k, v in initial.items()}, want)
