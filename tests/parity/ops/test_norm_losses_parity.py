"""Normalization layers, losses and random masks with the cases OneFlow's suite checked
(test_batch_normalization, test_layer_norm, test_prelu, test_KLDivloss,
test_MarginRankingLoss, test_TripletMarginLoss, test_bce_loss, test_bce_with_logits_loss,
test_l1loss, test_mseloss, test_smooth_l1_loss, test_sigmoid_cross_entropy,
test_softmax_cross_entropy, test_sparse_cross_entropy, test_sparse_softmax_cross_entropy,
test_dropout, test_random_mask_like, test_fused_bias_add_dropout,
test_fused_scale_tril_softmax_mask_and_scale): values and gradients against jax.numpy;
random ops by their statistics and by agreement of the fused and unfused forms."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from parity_helpers import Case, run_cases, uniform

import flowjob as flow
import flowjob.typing as tp


def _bn_ref(x, axis, eps):
    axes = tuple(a for a in range(x.ndim) if a != axis % x.ndim)
    mean, var = jnp.mean(x, axes, keepdims=True), jnp.var(x, axes, keepdims=True)
    return (x - mean) / jnp.sqrt(var + eps)


def _ln_ref(x, begin, eps):
    axes = tuple(range(begin % x.ndim, x.ndim))
    mean, var = jnp.mean(x, axes, keepdims=True), jnp.var(x, axes, keepdims=True)
    return (x - mean) / jnp.sqrt(var + eps)


def test_batch_norm_training_statistics_over_every_axis_and_layer_norm_options():
    x = uniform((5, 4, 3, 6), -2, 2, seed=1)
    cases = []
    for k, axis in enumerate((0, 1, 2, 3, -1)):
        for eps in (1.001e-5, 1e-4):
            cases.append(
                Case(
                    f"batch_normalization axis {axis} eps {eps}",
                    lambda a, ax=axis, e=eps, n=f"bn{k}_{eps}": flow.layers.batch_normalization(
                        a, axis=ax, epsilon=e, training=True, name=n
                    ),
                    lambda a, ax=axis, e=eps: _bn_ref(a, ax, e),
                    [x],
                    rtol=1e-4,
                    atol=1e-4,
                )
            )
    for k, (begin, center, scale, eps) in enumerate(
        (
            (1, True, True, 1e-5),
            (2, False, True, 1e-10),
            (-1, True, False, 1e-5),
            (3, False, False, 1e-5),
        )
    ):
        cases.append(
            Case(
                f"layer_norm begin {begin} center {center} scale {scale}",
                lambda a, b=begin, c=center, s=scale, e=eps, n=f"ln{k}": flow.layers.layer_norm(
                    a, center=c, scale=s, begin_norm_axis=b, begin_params_axis=-1, epsilon=e, name=n
                ),
                lambda a, b=begin, e=eps: _ln_ref(a, b, e),
                [x],
                rtol=1e-4,
                atol=1e-4,
            )
        )
    run_cases(cases)


def test_batch_norm_inference_uses_the_moving_statistics():
    x = uniform((4, 3, 2, 2), seed=2)
    mean, var = uniform((3,), seed=3), uniform((3,), 0.5, 2.0, seed=4)
    gamma, beta = uniform((3,), seed=5), uniform((3,), seed=6)

    def ref(a, m, v, g, b):
        shape = (1, 3, 1, 1)
        return (a - m.reshape(shape)) / jnp.sqrt(v.reshape(shape) + 1e-3) * g.reshape(
            shape
        ) + b.reshape(shape)

    run_cases(
        [
            Case(
                "nn.batch_normalization",
                lambda a, m, v, g, b: flow.nn.batch_normalization(
                    a, m, v, offset=b, scale=g, variance_epsilon=1e-3, axis=1
                ),
                ref,
                [x, mean, var, gamma, beta],
                rtol=1e-5,
                atol=1e-5,
            )
        ]
    )


@pytest.mark.parametrize("shared_axes", [(2,), (1, 2), (1, 3), (1, 2, 3)])
def test_prelu_shared_axes(shared_axes):
    x = uniform((3, 4, 5, 6), seed=7)
    alpha_shape = [4, 5, 6]
    for axis in shared_axes:
        alpha_shape[axis - 1] = 1
    alpha = uniform(alpha_shape, 0.1, 0.5, seed=8)

    class Fixed:
        def __call__(self, key, shape, dtype):
            return jnp.asarray(alpha, dtype)

    run_cases(
        [
            Case(
                f"prelu {shared_axes}",
                lambda a: flow.layers.prelu(
                    a, alpha_initializer=Fixed(), shared_axes=list(shared_axes), name="p"
                ),
                lambda a: jnp.where(a > 0, a, a * alpha[None]),
                [x],
            )
        ]
    )


def test_losses_value_and_gradient():
    rng = np.random.default_rng(9)
    x, t = uniform((3, 16), seed=10), uniform((3, 16), seed=11)
    prob, target01 = uniform((3, 16), 0.05, 0.95, seed=12), rng.integers(0, 2, (3, 16))
    target01 = target01.astype(np.float32)
    weight, pos_weight = uniform((3, 16), 0.5, 2, seed=13), uniform((16,), 0.5, 2, seed=14)
    log_p = jax.nn.log_softmax(jnp.asarray(uniform((3, 16), seed=15)))
    p_target = np.asarray(jax.nn.softmax(jnp.asarray(uniform((3, 16), seed=16))))
    a, p, n = (uniform((3, 16), seed=s) for s in (17, 18, 19))
    sign = np.where(rng.random((3, 16)) < 0.5, -1.0, 1.0).astype(np.float32)

    def reduce(v, how):
        # OneFlow's full reductions have shape (1,)
        return {"none": v, "mean": jnp.mean(v).reshape(1), "sum": jnp.sum(v).reshape(1)}[how]

    cases = []
    for how in ("none", "mean", "sum"):

        def red(v, h=how):
            return reduce(v, h)

        cases += [
            Case(
                f"L1Loss {how}",
                lambda u, v, h=how: flow.nn.L1Loss(u, v, reduction=h),
                lambda u, v, r=red: r(jnp.abs(u - v)),
                [x, t],
            ),
            Case(
                f"MSELoss {how}",
                lambda u, v, h=how: flow.nn.MSELoss(u, v, reduction=h),
                lambda u, v, r=red: r((u - v) ** 2),
                [x, t],
            ),
            Case(
                f"BCELoss {how}",
                lambda u, v, w, h=how: flow.nn.BCELoss(u, v, w, reduction=h),
                lambda u, v, w, r=red: r(-w * (v * jnp.log(u) + (1 - v) * jnp.log(1 - u))),
                [prob, target01, weight],
                diff_inputs=[0],
            ),
            Case(
                f"BCEWithLogitsLoss {how}",
                lambda u, v, w, pw, h=how: flow.nn.BCEWithLogitsLoss(u, v, w, pw, reduction=h),
                lambda u, v, w, pw, r=red: r(
                    -w * (pw * v * jax.nn.log_sigmoid(u) + (1 - v) * jax.nn.log_sigmoid(-u))
                ),
                [x, target01, weight, pos_weight],
                diff_inputs=[0],
            ),
            Case(
                f"MarginRankingLoss {how}",
                lambda u, v, s, h=how: flow.nn.MarginRankingLoss(u, v, s, margin=0.3, reduction=h),
                lambda u, v, s, r=red: r(jnp.maximum(0.0, -s * (u - v) + 0.3)),
                [x, t, sign],
                diff_inputs=[0, 1],
            ),
        ]
        for log_target in (False, True):
            target = np.asarray(jnp.log(p_target)) if log_target else p_target
            cases.append(
                Case(
                    f"KLDivLoss {how} log_target={log_target}",
                    lambda u, v, h=how, lt=log_target: flow.nn.KLDivLoss(
                        u, v, log_target=lt, reduction=h
                    ),
                    lambda u, v, r=red, lt=log_target: r(
                        jnp.exp(v) * (v - u) if lt else jnp.where(v > 0, v * (jnp.log(v) - u), 0)
                    ),
                    [np.asarray(log_p), target],
                    diff_inputs=[0],
                )
            )
    for p_norm, swap in ((2.0, False), (1.0, True), (3.0, False)):

        def dist(u, v, q=p_norm):
            return jnp.sum(jnp.abs(u - v + 1e-6) ** q, axis=-1) ** (1 / q)

        def triplet(u, v, w, q=p_norm, sw=swap):
            d_neg = dist(u, w, q)
            if sw:
                d_neg = jnp.minimum(d_neg, dist(v, w, q))
            return jnp.mean(jnp.maximum(dist(u, v, q) - d_neg + 0.5, 0.0)).reshape(1)

        cases.append(
            Case(
                f"TripletMarginLoss p={p_norm} swap={swap}",
                lambda u, v, w, q=p_norm, sw=swap: flow.nn.TripletMarginLoss(
                    u, v, w, margin=0.5, p=q, eps=1e-6, swap=sw
                ),
                triplet,
                [a, p, n],
                rtol=1e-4,
                atol=1e-4,
            )
        )
    for beta in (0.0, 0.5, 1.0):
        cases.append(
            Case(
                f"smooth_l1_loss beta {beta}",
                lambda u, v, b=beta: flow.smooth_l1_loss(u, v, beta=b),
                lambda u, v, b=beta: (
                    jnp.abs(u - v)
                    if b == 0
                    else jnp.where(
                        jnp.abs(u - v) < b, 0.5 * (u - v) ** 2 / b, jnp.abs(u - v) - 0.5 * b
                    )
                ),
                [x, t],
            )
        )
    run_cases(cases)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
def test_cross_entropies(dtype, label_dtype):
    logits = uniform((8, 5, 12), -3, 3, dtype, seed=20)
    labels_p = np.exp(uniform((8, 5, 12), dtype=dtype, seed=21))
    # rows summing to 1 in this dtype: OneFlow's gradient is softmax - labels, which is
    # the exact gradient only for normalized labels
    labels_p = labels_p / labels_p.sum(-1, keepdims=True)
    labels01 = (uniform((8, 5, 12), seed=22) > 0).astype(dtype)
    sparse = np.random.default_rng(23).integers(0, 12, (8, 5)).astype(label_dtype)
    probs = np.asarray(jax.nn.softmax(jnp.asarray(logits))).astype(dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-10
    run_cases(
        [
            Case(
                "sigmoid_cross_entropy_with_logits",
                lambda z, x: flow.nn.sigmoid_cross_entropy_with_logits(z, x),
                lambda z, x: jnp.maximum(x, 0) - x * z + jnp.log1p(jnp.exp(-jnp.abs(x))),
                [labels01, logits],
                diff_inputs=[1],
                rtol=tol,
                atol=tol,
            ),
            Case(
                "softmax_cross_entropy_with_logits",
                lambda z, x: flow.nn.softmax_cross_entropy_with_logits(z, x),
                lambda z, x: -jnp.sum(z * jax.nn.log_softmax(x), -1),
                [labels_p, logits],
                diff_inputs=[1],
                rtol=tol,
                atol=tol,
            ),
            Case(
                "sparse_softmax_cross_entropy_with_logits",
                lambda z, x: flow.nn.sparse_softmax_cross_entropy_with_logits(z, x),
                lambda z, x: -jnp.take_along_axis(jax.nn.log_softmax(x), z[..., None], -1)[..., 0],
                [sparse, logits],
                rtol=tol,
                atol=tol,
            ),
            Case(
                "sparse_cross_entropy",
                lambda z, p: flow.nn.sparse_cross_entropy(z, p),
                lambda z, p: -jnp.log(jnp.take_along_axis(p, z[..., None], -1)[..., 0]),
                [sparse, probs],
                rtol=tol,
                atol=tol,
            ),
        ]
    )


X_SHAPE, BIAS_SHAPE = (50, 40, 10), (40,)
SIX = tuple[tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy]


def test_dropout_and_random_mask_statistics_and_fused_forms():
    """Rates 0.1/0.4/0.75: the kept fraction matches, kept values are scaled by 1/(1-rate) and
    so is their gradient; the fused ops equal dropout of the unfused result with the same
    mask (the one dropout draws, read back through the zero pattern)."""
    x = uniform(X_SHAPE, 0.5, 1.5, seed=24)
    bias = uniform(BIAS_SHAPE, seed=25)
    grads = {}

    @flow.global_function(type="train")
    def job(a: tp.Numpy.Placeholder(X_SHAPE), b: tp.Numpy.Placeholder(BIAS_SHAPE)) -> SIX:
        zero = flow.get_variable("z", shape=x.shape, initializer=flow.zeros_initializer())
        a = a + zero
        flow.watch_diff(a, lambda g: grads.__setitem__("x", g))
        outs = [
            flow.nn.dropout(a, rate=r, seed=12345, name=f"dropout{r}") for r in (0.1, 0.4, 0.75)
        ]
        mask = flow.nn.random_mask_like(a, rate=0.4, seed=7, name="mask")
        fused = flow.nn.fused_bias_add_dropout(
            a, b, data_format="NCHW", rate=0.5, seed=3, name="fused"
        )
        tril = flow.nn.fused_scale_tril_softmax_dropout(
            a, diagonal=0, fill_value=float("-inf"), scale=0.125, rate=0.5, seed=5, name="tril"
        )
        loss = flow.math.reduce_sum(outs[0] * 2.0)
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.0]), momentum=0
        ).minimize(loss)
        return (*outs, mask, fused, tril)

    *outs, mask, fused, tril = job(x, bias)
    flow.sync_default_session()
    for rate, out in zip((0.1, 0.4, 0.75), outs):
        kept = out != 0
        assert abs(1 - kept.mean() - rate) < rate / 5, (rate, kept.mean())
        np.testing.assert_allclose(out[kept], x[kept] / (1 - rate), rtol=1e-6)
    kept = outs[0] != 0
    np.testing.assert_allclose(grads["x"][kept], 2.0 / 0.9, rtol=1e-6)
    assert (grads["x"][~kept] == 0).all()
    assert set(np.unique(mask)) <= {0, 1} and abs(1 - mask.mean() - 0.4) < 0.08
    biased = x + bias.reshape(1, 40, 1)
    kept = fused != 0
    assert abs(kept.mean() - 0.5) < 0.1
    np.testing.assert_allclose(fused[kept], biased[kept] * 2.0, rtol=1e-5)
    soft = np.asarray(
        jax.nn.softmax(jnp.where(jnp.tri(40, 10, 0, dtype=bool), x * 0.125, -jnp.inf), axis=-1)
    )
    kept = tril != 0
    np.testing.assert_allclose(tril[kept], soft[kept] * 2.0, rtol=1e-5)
    assert (tril[soft == 0] == 0).all()
