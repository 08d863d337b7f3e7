"""``flowjob/_src/ops/_losses.py``: cross-entropies and the functional losses."""

from __future__ import annotations

from typing import Tuple

import numpy as np
import pytest
from ops_helpers import (
    np_sigmoid,
    numeric_grad,
    sgd,
    value_and_grads,
    variables,
)

import flowjob as flow
import flowjob.typing as tp

LOSSES = {
    "MSELoss": lambda x, t: (t - x) ** 2,
    "L1Loss": lambda x, t: np.abs(t - x),
    "BCELoss": lambda x, t: -(t * np.log(x) + (1 - t) * np.log(1 - x)),
    "BCEWithLogitsLoss": lambda x, t: (
        -(t * np.log(np_sigmoid(x)) + (1 - t) * np.log(1 - np_sigmoid(x)))
    ),
}


def test_cross_entropy_losses_match_numpy():
    logits = np.array([[4, 1, 2], [3, 2, 3], [1, 5, 10]], np.float32)
    sparse = np.array([0, 1, 2], np.int32)
    dense = np.array([[0.9, 0.05, 0.05], [0.3, 0.4, 0.3], [0.8, 0.1, 0.1]], np.float32)
    sig_x = np.array([[4, 1], [3, 2], [1, 5]], np.float32)
    sig_z = np.array([[0.7, 0.3], [0.4, 0.6], [0.2, 0.8]], np.float32)
    probs = np.array([[0.3, 0.7], [0.4, 0.6], [0.5, 0.5], [0.1, 0.9], [0.2, 0.8]], np.float32)
    prob_labels = np.array([0, 1, 1, 0, 1], np.int32)

    @flow.global_function()
    def job(
        logits: tp.Numpy.Placeholder((3, 3)),
        sparse: tp.Numpy.Placeholder((3,), dtype=flow.int32),
        dense: tp.Numpy.Placeholder((3, 3)),
        sig_x: tp.Numpy.Placeholder((3, 2)),
        sig_z: tp.Numpy.Placeholder((3, 2)),
        probs: tp.Numpy.Placeholder((5, 2)),
        prob_labels: tp.Numpy.Placeholder((5,), dtype=flow.int32),
    ) -> Tuple[(tp.Numpy,) * 5]:
        column = flow.reshape(sparse, (3, 1))
        return (
            flow.nn.sparse_softmax_cross_entropy_with_logits(sparse, logits),
            flow.nn.sparse_softmax_cross_entropy_with_logits(column, logits),
            flow.nn.softmax_cross_entropy_with_logits(dense, logits),
            flow.nn.sigmoid_cross_entropy_with_logits(sig_z, sig_x),
            flow.nn.sparse_cross_entropy(prob_labels, probs),
        )

    sparse_ce, column_ce, dense_ce, sigmoid_ce, prob_ce = job(
        logits, sparse, dense, sig_x, sig_z, probs, prob_labels
    )
    shifted = logits - logits.max(1, keepdims=True)
    log_softmax = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    np.testing.assert_allclose(sparse_ce, -log_softmax[np.arange(3), sparse], rtol=1e-5)
    np.testing.assert_allclose(column_ce, sparse_ce)
    np.testing.assert_allclose(dense_ce, -(dense * log_softmax).sum(1), rtol=1e-5)
    sig = 1 / (1 + np.exp(-sig_x))
    np.testing.assert_allclose(
        sigmoid_ce, -sig_z * np.log(sig) - (1 - sig_z) * np.log(1 - sig), rtol=1e-5
    )
    # the values printed in OneFlow's sparse_cross_entropy docstring
    np.testing.assert_allclose(
        prob_ce, [1.2039728, 0.5108256, 0.6931472, 2.3025851, 0.22314353], rtol=1e-5
    )


def test_sparse_softmax_cross_entropy_gradient_is_softmax_minus_one_hot():
    rng = np.random.default_rng(4)
    logits = rng.standard_normal((8, 10)).astype(np.float32)
    labels = rng.integers(0, 10, 8).astype(np.int32)
    seen = {}

    @flow.global_function(type="train")
    def job(
        x: tp.Numpy.Placeholder((8, 10)), y: tp.Numpy.Placeholder((8,), dtype=flow.int32)
    ) -> tp.Numpy:
        v = flow.get_variable("v", shape=(1,), initializer=flow.zeros_initializer())
        z = x + v
        flow.watch_diff(z, lambda d: seen.setdefault("grad", d))
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(y, z)
        sgd(0.0).minimize(loss)
        return loss

    loss = job(logits, labels)
    flow.sync_default_session()
    e = np.exp(logits - logits.max(1, keepdims=True))
    softmax = e / e.sum(1, keepdims=True)
    np.testing.assert_allclose(loss, -np.log(softmax[np.arange(8), labels]), rtol=1e-5)
    np.testing.assert_allclose(seen["grad"], softmax - np.eye(10)[labels], atol=1e-6)


def test_add_loss_marks_the_loss_of_a_legacy_train_job():
    config = flow.function_config()
    config.train.primary_lr(0.5)
    config.train.model_update_conf({"naive_conf": {}})

    @flow.global_function(type="train", function_config=config)
    def train(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(3,), initializer=flow.ones_initializer())
        loss = flow.math.reduce_sum(x * w)
        flow.losses.add_loss(loss)
        return loss

    x = np.array([1, 2, 3], np.float32)
    assert train(x) == pytest.approx(6.0)
    np.testing.assert_allclose(variables()["w"], 1 - 0.5 * x)  # d loss / d w = x


def test_add_loss_is_rejected_in_predict_jobs():
    @flow.global_function()
    def predict(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        flow.losses.add_loss(x)
        return x

    with pytest.raises(flow.JobDefinitionError, match="predict job"):
        predict(np.array([1, 2, 3], np.float32))


@pytest.mark.parametrize("name", sorted(LOSSES))
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_losses_value_and_gradient(name, reduction):
    rng = np.random.default_rng(3)
    x = rng.uniform(0.1, 0.9, (3, 4))
    t = rng.uniform(0, 1, (3, 4))
    elementwise = LOSSES[name]
    reduce = {
        "none": lambda v: v,
        "mean": lambda v: np.mean(v).reshape(1),
        "sum": lambda v: np.sum(v).reshape(1),
    }[reduction]
    value, (gx, _), c = value_and_grads(
        lambda a, b: getattr(flow.nn, name)(a, b, reduction=reduction), x, t
    )
    want = reduce(elementwise(x, t))
    assert value.shape == want.shape
    np.testing.assert_allclose(value, want, rtol=1e-10)
    np.testing.assert_allclose(
        gx, numeric_grad(lambda a: reduce(elementwise(a, t)), [x], c)[0], rtol=1e-5, atol=1e-8
    )


def test_bce_weights_and_bad_arguments():
    x = np.array([[0.2, 0.7], [0.9, 0.4]])
    t = np.array([[0.0, 1.0], [1.0, 0.0]])
    w = np.array([[1.0, 2.0], [0.5, 3.0]])
    pw = np.array([2.0, 0.5])
    value, _, _ = value_and_grads(
        lambda a, b, c: flow.nn.BCELoss(a, b, weight=c, reduction="sum"), x, t, w
    )
    np.testing.assert_allclose(value, [np.sum(w * LOSSES["BCELoss"](x, t))])
    value, _, _ = value_and_grads(
        lambda a, b, p: flow.nn.BCEWithLogitsLoss(a, b, pos_weight=p, reduction="none"), x, t, pw
    )
    want = -(pw * t * np.log(np_sigmoid(x)) + (1 - t) * np.log(1 - np_sigmoid(x)))
    np.testing.assert_allclose(value, want, rtol=1e-10)

    @flow.global_function()
    def bad(x: tp.Numpy.Placeholder((2, 2)), t: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        return flow.nn.MSELoss(x, t)

    with pytest.raises(flow.OpError, match=r"MSELoss.*same shape"):
        bad(np.zeros((2, 2), np.float32), np.zeros((2, 3), np.float32))

    @flow.global_function()
    def bad_reduction(x: tp.Numpy.Placeholder((2, 2))) -> tp.Numpy:
        return flow.nn.L1Loss(x, x, reduction="avg")

    with pytest.raises(flow.OpError, match=r"L1Loss.*reduction must be one of"):
        bad_reduction(np.zeros((2, 2), np.float32))


def test_softmax_cross_entropy_gradient_is_p_minus_labels():
    rng = np.random.default_rng(4)
    logits = rng.normal(size=(3, 5))
    labels = rng.uniform(0, 1, (3, 5))  # not normalised: p - labels differs from the autodiff
    value, (g_labels, g_logits), c = value_and_grads(
        lambda lab, lo: flow.nn.softmax_cross_entropy_with_logits(lab, lo), labels, logits
    )
    e = np.exp(logits - logits.max(1, keepdims=True))
    p = e / e.sum(1, keepdims=True)
    np.testing.assert_allclose(value, -np.sum(labels * np.log(p), axis=1), rtol=1e-10)
    np.testing.assert_allclose(g_logits, c[:, None] * (p - labels), rtol=1e-10)
    np.testing.assert_array_equal(g_labels, np.zeros_like(labels))


def test_kl_div_loss_both_target_forms():
    rng = np.random.default_rng(8)
    log_p = np.log(rng.dirichlet(np.ones(4), size=3))
    target = rng.dirichlet(np.ones(4), size=3)
    target[0, 1] = 0.0  # a zero target contributes 0 (and no NaN gradient)

    def ref(x, t):
        return np.where(t > 0, t * (np.log(np.where(t > 0, t, 1)) - x), 0)

    value, (g, _), c = value_and_grads(
        lambda x, t: flow.nn.KLDivLoss(x, t, reduction="none"), log_p, target
    )
    np.testing.assert_allclose(value, ref(log_p, target), rtol=1e-10)
    np.testing.assert_allclose(
        g, numeric_grad(lambda x: ref(x, target), [log_p], c)[0], rtol=1e-5, atol=1e-8
    )
    log_t = np.log(target + 0.1)
    value, _, _ = value_and_grads(
        lambda x, t: flow.nn.KLDivLoss(x, t, log_target=True, reduction="sum"), log_p, log_t
    )
    np.testing.assert_allclose(value, [np.sum(np.exp(log_t) * (log_t - log_p))], rtol=1e-10)


def test_margin_ranking_and_triplet_losses():
    rng = np.random.default_rng(9)
    a, b = rng.normal(size=(6,)), rng.normal(size=(6,))
    y = np.array([1.0, -1.0, 1.0, 1.0, -1.0, -1.0])
    value, (ga, _, _), c = value_and_grads(
        lambda u, v, t: flow.nn.MarginRankingLoss(u, v, t, margin=0.3, reduction="none"), a, b, y
    )
    want = np.maximum(0.3 - y * (a - b), 0)
    np.testing.assert_allclose(value, want)
    np.testing.assert_allclose(ga, np.where(want > 0, -y * c, 0))

    anc, pos, neg = (rng.normal(size=(4, 3)) for _ in range(3))
    for p, swap in ((2.0, False), (1.0, False), (2.0, True)):

        def ref(x, q, n, p=p, swap=swap):
            def dist(u, v):
                return np.sum(np.abs(u - v + 1e-6) ** p, axis=1) ** (1 / p)

            d_neg = np.minimum(dist(x, n), dist(q, n)) if swap else dist(x, n)
            return np.maximum(1.0 + dist(x, q) - d_neg, 0)

        value, (g, _, _), c = value_and_grads(
            lambda x, q, n, p=p, swap=swap: flow.nn.TripletMarginLoss(
                x, q, n, p=p, swap=swap, reduction="none"
            ),
            anc,
            pos,
            neg,
        )
        np.testing.assert_allclose(value, ref(anc, pos, neg), rtol=1e-10)
        np.testing.assert_allclose(
            g, numeric_grad(lambda x: ref(x, pos, neg), [anc], c)[0], rtol=1e-5, atol=1e-7
        )


def test_smooth_l1_loss():
    x = np.array([[-2.0, -0.3, 0.2], [0.9, 1.5, 0.0]])
    y = np.zeros_like(x)

    def ref(p, beta):
        d = np.abs(p)
        return np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)

    for beta in (1.0, 0.5):
        value, (g, _), c = value_and_grads(
            lambda p, t, beta=beta: flow.smooth_l1_loss(p, t, beta=beta), x + 0.01, y
        )
        np.testing.assert_allclose(value, ref(x + 0.01, beta), rtol=1e-12)
        want = numeric_grad(lambda p, beta=beta: ref(p, beta), [x + 0.01], c)[0]
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-8)


def test_distributed_sparse_softmax_cross_entropy_matches_numpy_with_either_label_shape():
    logits = np.random.default_rng(4).normal(size=(6, 5)).astype(np.float64)
    labels = np.array([0, 4, 2, 2, 1, 3], np.int32)

    @flow.global_function()
    def job(
        lg: tp.Numpy.Placeholder((6, 5), dtype=flow.float64),
        lb: tp.Numpy.Placeholder((6, 1), dtype=flow.int32),
    ) -> tp.Numpy:
        return flow.nn.distributed_sparse_softmax_cross_entropy_with_logits(lb, lg)

    shifted = logits - logits.max(-1, keepdims=True)
    log_softmax = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
    np.testing.assert_allclose(
        job(logits, labels[:, None]), -log_softmax[np.arange(6), labels], rtol=1e-12
    )


@pytest.mark.parametrize(
    "m1, m2, m3", [(1.0, 0.5, 0.0), (1.35, 0.0, 0.0), (1.0, 0.0, 0.35), (1.0, 0.3, 0.2)]
)
def test_combined_margin_loss_matches_numpy_and_jax_grad(m1, m2, m3):
    import jax
    import jax.numpy as jnp

    x = np.random.default_rng(2).uniform(-0.9, 0.9, size=(4, 5))
    label = np.array([0, 4, 2, 7], np.int32)  # 7: outside the classes, row unchanged

    def reference(a, xp):
        hit = np.arange(5)[None, :] == label[:, None]
        margin = xp.cos(xp.arccos(xp.where(hit, a, 0.0)) * m1 + m2) - m3
        return xp.where(hit, margin, a)

    value, (grad, _), cot = value_and_grads(
        lambda a, lb: flow.combined_margin_loss(a, lb, m1, m2, m3), x, label
    )
    np.testing.assert_allclose(value, reference(x, np), rtol=1e-12)
    np.testing.assert_array_equal(value[3], x[3])
    want = jax.grad(lambda a: (reference(a, jnp) * cot).sum())(x)
    np.testing.assert_allclose(grad, want, rtol=1e-10)
