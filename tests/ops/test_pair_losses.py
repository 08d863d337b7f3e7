"""flow.nn.KLDivLoss / MarginRankingLoss / TripletMarginLoss against NumPy
(formulas written out here from their definitions) and their gradients against jax.grad."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from ops_helpers import FixedInit

import flowjob as flow
import flowjob.typing as tp

rng = np.random.default_rng(0)


def _run(fn, *arrays):
    """``fn(*blobs)`` in a predict job taking ``arrays`` (float64); returns its value."""
    shapes = [a.shape for a in arrays]
    P = tp.Numpy.Placeholder  # noqa: N806

    if len(arrays) == 2:
        @flow.global_function()
        def Job2(a: P(shapes[0], dtype=flow.float64),
                 b: P(shapes[1], dtype=flow.float64)) -> tp.Numpy:
            return fn(a, b)
        job = Job2
    elif len(arrays) == 3:
        @flow.global_function()
        def Job3(a: P(shapes[0], dtype=flow.float64), b: P(shapes[1], dtype=flow.float64),
                 c: P(shapes[2], dtype=flow.float64)) -> tp.Numpy:
            return fn(a, b, c)
        job = Job3
    else:
        @flow.global_function()
        def Job4(a: P(shapes[0], dtype=flow.float64), b: P(shapes[1], dtype=flow.float64),
                 c: P(shapes[2], dtype=flow.float64),
                 d: P(shapes[3], dtype=flow.float64)) -> tp.Numpy:
            return fn(a, b, c, d)
        job = Job4
    return job(*[np.asarray(a, np.float64) for a in arrays])


@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(log_target):
    x = np.log(rng.uniform(0.1, 1, (3, 5)))
    t = rng.uniform(-0.5, 1, (3, 5))
    if log_target:
        ref = np.exp(t) * (t - x)
    else:
        ref = np.where(t > 0, t * (np.log(np.where(t > 0, t, 1)) - x), 0.0)
    got = _run(lambda a, b: flow.nn.KLDivLoss(a, b, log_target=log_target, reduction="sum"),
               x, t)
    np.testing.assert_allclose(got, [ref.sum()], rtol=1e-12)


def test_margin_ranking():
    a, b = rng.normal(size=(6,)), rng.normal(size=(6,))
    t = np.where(rng.normal(size=(6,)) > 0, 1.0, -1.0)
    got = _run(lambda x, y, z: flow.nn.MarginRankingLoss(x, y, z, margin=0.3,
                                                         reduction="none"), a, b, t)
    np.testing.assert_allclose(got, np.maximum(0, 0.3 - t * (a - b)), rtol=1e-12)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0])
def test_triplet_margin(p):
    a, pos, neg = (rng.normal(size=(5, 4)) for _ in range(3))

    def dist(u, v):
        return (np.abs(u - v + 1e-6) ** p).sum(axis=1) ** (1 / p)

    ref = np.maximum(0, 1.0 + dist(a, pos) - dist(a, neg)).mean()
    got = _run(lambda x, y, z: flow.nn.TripletMarginLoss(x, y, z, p=p), a, pos, neg)
    np.testing.assert_allclose(got, [ref], rtol=1e-12)


def test_gradient_matches_jax_grad():
    x0, t = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)).astype(np.float32)
    grads = {}

    @flow.global_function(type="train")
    def Job(t_: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        x = flow.get_variable("x", (4, 3), initializer=FixedInit(x0.astype(np.float32)))
        flow.watch_diff(x, lambda d: grads.setdefault("x", d))
        loss = flow.nn.TripletMarginLoss(x, t_, t_ * 0.5, p=3.0)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0])).minimize(loss)
        return loss

    Job(t)
    flow.sync_default_session()

    def ref(x):
        def dist(u, v):
            return jnp.sum(jnp.abs(u - v + 1e-6) ** 3, axis=1) ** (1 / 3)

        return jnp.mean(jnp.maximum(1.0 + dist(x, t) - dist(x, t * 0.5), 0.0))

    np.testing.assert_allclose(grads["x"], jax.grad(ref)(x0.astype(np.float32)), rtol=1e-5)


def test_bad_reduction_names_the_op():
    with pytest.raises(flow.OpError, match="KLDivLoss.*reduction must be one of"):
        _run(lambda a, b: flow.nn.KLDivLoss(a, b, reduction="avg"), np.ones(2), np.ones(2))
