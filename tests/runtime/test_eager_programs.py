"""Eager train calls whose graph repeats run one compiled step (runtime/_eager_programs.py):
traced once per graph structure, the same trajectory as jax.grad; bodies whose graph, values
read or optimizer settings change from call to call still train exactly."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.runtime import _train_step

pytestmark = pytest.mark.usefixtures("fresh_session")

RNG = np.random.default_rng(3)
W0 = RNG.standard_normal((4, 3)).astype(np.float32)
XS = [RNG.standard_normal((8, 4)).astype(np.float32) * (1 if k % 3 else -1) for k in range(7)]


def _loss(w, x, activation):
    return jnp.sum(jnp.square(activation(x @ w)))


def _reference(lrs, activations):
    """Plain SGD on the same loss with jax.grad: the weights before each step, the losses."""
    w, before, losses = jnp.asarray(W0), [], []
    for x, lr, act in zip(XS, lrs, activations):
        before.append(np.asarray(w))
        loss, grad = jax.value_and_grad(_loss)(w, x, act)
        losses.append(float(loss))
        w = w - lr * grad
    return before, losses


def _count_step_traces(monkeypatch) -> list:
    calls = []
    original = _train_step._TrainStep.__call__

    def counted(self, *args):
        calls.append(1)
        return original(self, *args)

    monkeypatch.setattr(_train_step._TrainStep, "__call__", counted)
    return calls


def _train_job(hidden, learning_rate):
    """loss = sum(hidden(x, w)^2), plain SGD at ``learning_rate()`` read in each call."""

    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((8, 4))) -> tp.Numpy:
        w = flow.get_variable("w", (4, 3), initializer=flow.constant_initializer(0.0))
        loss = flow.math.reduce_sum(flow.math.square(hidden(x, w)))
        lr = flow.optimizer.PiecewiseConstantScheduler([], [learning_rate()])
        flow.optimizer.SGD(lr, momentum=0).minimize(loss)
        return loss

    return train


def test_a_repeated_graph_is_traced_once_and_follows_jax_grad(monkeypatch):
    traces = _count_step_traces(monkeypatch)
    flow.enable_eager_execution(True)
    kept = []

    def hidden(x, w):
        h = flow.math.tanh(flow.matmul(x, w))
        kept.append((w, h))
        return h

    train = _train_job(hidden, lambda: 0.05)
    flow.load_variables({"w": W0})
    losses = [train(x).item() for x in XS]
    flow.sync_default_session()
    # the first call replays its graph op by op, the second traces it under jax.jit, the
    # later calls run that compiled step
    assert len(traces) == 2
    before, want = _reference([0.05] * len(XS), [jnp.tanh] * len(XS))
    np.testing.assert_allclose(losses, want, rtol=1e-5)
    # the body's blobs keep their values after the call, read or not in the body
    for (w, h), w_before, x in zip(kept, before, XS):
        np.testing.assert_allclose(w.numpy(), w_before, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(h.numpy(), np.tanh(x @ w_before), rtol=1e-5, atol=1e-6)


def test_a_graph_that_follows_the_values_trains_exactly():
    flow.enable_eager_execution(True)

    def hidden(x, w):
        z = flow.matmul(x, w)
        # Python control flow on a value: the graph depends on the data
        return flow.math.tanh(z) if float(z.numpy().sum()) > 0 else flow.math.sigmoid(z)

    train = _train_job(hidden, lambda: 0.05)
    flow.load_variables({"w": W0})
    losses = [train(x).item() for x in XS]
    flow.sync_default_session()
    # the branch each call took, from the weights the reference has before it
    w, activations = jnp.asarray(W0), []
    for x in XS:
        act = jnp.tanh if float(jnp.sum(x @ w)) > 0 else jax.nn.sigmoid
        activations.append(act)
        w = w - 0.05 * jax.grad(_loss)(w, x, act)
    assert len({a.__name__ for a in activations}) == 2  # both graphs ran
    _, want = _reference([0.05] * len(XS), activations)
    np.testing.assert_allclose(losses, want, rtol=1e-5)
    np.testing.assert_allclose(flow.get_all_variables()["w"].numpy(), w, rtol=1e-5, atol=1e-6)


def test_a_learning_rate_set_per_call_is_the_one_used(monkeypatch):
    traces = _count_step_traces(monkeypatch)
    flow.enable_eager_execution(True)
    lrs = [0.05, 0.05, 0.05, 0.01, 0.01, 0.01, 0.01]
    step = iter(range(len(lrs)))

    train = _train_job(lambda x, w: flow.math.tanh(flow.matmul(x, w)), lambda: lrs[next(step)])
    flow.load_variables({"w": W0})
    losses = [train(x).item() for x in XS]
    _, want = _reference(lrs, [jnp.tanh] * len(XS))
    np.testing.assert_allclose(losses, want, rtol=1e-5)
    assert len(traces) == 4  # one op-by-op run and one trace per learning rate
