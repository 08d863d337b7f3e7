"""``flow.optimizer.CombinedOptimizer``: each optimizer updates its own variables in one job,
exactly as it would alone (NumPy SGD, and Adam against a job that uses it alone)."""

from __future__ import annotations

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp

pytestmark = pytest.mark.usefixtures("fresh_session")

X = np.arange(1, 7, dtype=np.float32).reshape(2, 3)


def _lr(rate):
    return flow.optimizer.PiecewiseConstantScheduler([], [rate])


def _job(make_optimizer):
    @flow.global_function(type="train")
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        a = flow.get_variable("a", shape=(3,), initializer=flow.ones_initializer())
        b = flow.get_variable("b", shape=(3,), initializer=flow.ones_initializer())
        loss = flow.math.reduce_sum(x * a) + flow.math.reduce_sum(x * x * b)
        make_optimizer().minimize(loss)
        return loss

    return job


def _values():
    return {k: v.numpy() for k, v in flow.get_all_variables().items()}


def test_each_optimizer_updates_only_its_variables():
    job = _job(
        lambda: flow.optimizer.CombinedOptimizer(
            [
                flow.optimizer.SGD(_lr(0.1), momentum=0, variables=["a"]),
                flow.optimizer.Adam(_lr(0.01), variables=["b"]),
            ]
        )
    )
    for _ in range(3):
        job(X)
    combined = _values()
    grad_a = X.sum(0)  # d loss / d a (the loss is one element: no 1/N)
    np.testing.assert_allclose(combined["a"], 1 - 3 * 0.1 * grad_a, rtol=1e-6)
    assert "b-m" in combined and "b-v" in combined and "a-m" not in combined

    flow.clear_default_session()
    adam_alone = _job(lambda: flow.optimizer.Adam(_lr(0.01), variables=["b"]))
    for _ in range(3):
        adam_alone(X)
    alone = _values()
    np.testing.assert_allclose(combined["b"], alone["b"], rtol=1e-6)
    np.testing.assert_allclose(combined["b-m"], alone["b-m"], rtol=1e-6)
    np.testing.assert_array_equal(alone["a"], np.ones(3))


def test_an_optimizer_without_variables_takes_the_rest():
    job = _job(
        lambda: flow.optimizer.CombinedOptimizer(
            [
                flow.optimizer.SGD(_lr(0.5), momentum=0, variables=["b"]),
                flow.optimizer.SGD(_lr(0.1), momentum=0),
            ]
        )
    )
    job(X)
    v = _values()
    np.testing.assert_allclose(v["a"], 1 - 0.1 * X.sum(0), rtol=1e-6)
    np.testing.assert_allclose(v["b"], 1 - 0.5 * (X * X).sum(0), rtol=1e-6)


def test_overlapping_or_nested_optimizers_are_refused():
    sgd = flow.optimizer.SGD(_lr(0.1), momentum=0, variables=["a"])
    with pytest.raises(TypeError, match="another CombinedOptimizer"):
        flow.optimizer.CombinedOptimizer([flow.optimizer.CombinedOptimizer([sgd])])
    with pytest.raises(ValueError, match="at most one"):
        flow.optimizer.CombinedOptimizer(
            [flow.optimizer.SGD(_lr(0.1)), flow.optimizer.SGD(_lr(0.2))]
        )
    job = _job(
        lambda: flow.optimizer.CombinedOptimizer(
            [sgd, flow.optimizer.SGD(_lr(0.2), variables=["a", "b"])]
        )
    )
    with pytest.raises(ValueError, match="named by two optimizers"):
        job(X)
