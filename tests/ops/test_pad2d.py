"""flow.constant_pad2d / zero_pad2d / reflection_pad2d / replication_pad2d against np.pad,
and the gradient of reflection padding against jax.grad."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from ops_helpers import FixedInit

import flowjob as flow
import flowjob.typing as tp

X = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)


def _pad(fn, x=X):
    @flow.global_function()
    def Job(a: tp.Numpy.Placeholder(x.shape, dtype=flow.float32)) -> tp.Numpy:
        return fn(a)

    return Job(x)


@pytest.mark.parametrize("padding, sides", [(2, (2, 2, 2, 2)), ([1, 3, 0, 2], (1, 3, 0, 2))])
@pytest.mark.parametrize("op, mode", [(flow.reflection_pad2d, "reflect"),
                                      (flow.replication_pad2d, "edge")])
def test_reflect_and_replicate(op, mode, padding, sides):
    left, right, top, bottom = sides
    ref = np.pad(X, ((0, 0), (0, 0), (top, bottom), (left, right)), mode=mode)
    np.testing.assert_array_equal(_pad(lambda a: op(a, padding)), ref)


def test_constant_and_zero():
    ref = np.pad(X, ((0, 0), (0, 0), (3, 0), (1, 2)), constant_values=-1.5)
    np.testing.assert_array_equal(
        _pad(lambda a: flow.constant_pad2d(a, [1, 2, 3, 0], constant_value=-1.5)), ref)
    np.testing.assert_array_equal(_pad(lambda a: flow.zero_pad2d(a, 1)),
                                  np.pad(X, ((0, 0), (0, 0), (1, 1), (1, 1))))


def test_padding_not_smaller_than_the_input_is_refused():
    with pytest.raises(flow.OpError, match=r"reflection_pad2d.*smaller than the input's width 5"):
        _pad(lambda a: flow.reflection_pad2d(a, [5, 0, 0, 0]))


def test_reflection_gradient_matches_jax_grad():
    grads = {}

    @flow.global_function(type="train")
    def Job() -> tp.Numpy:
        x = flow.get_variable("x", X.shape, initializer=FixedInit(X / 100))
        flow.watch_diff(x, lambda d: grads.setdefault("x", d))
        y = flow.reflection_pad2d(x, [2, 2, 1, 1])
        loss = flow.math.reduce_sum(y * y)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0])).minimize(loss)
        return loss

    Job()
    flow.sync_default_session()
    ref = jax.grad(lambda x: jnp.sum(jnp.pad(x, ((0, 0), (0, 0), (1, 1), (2, 2)),
                                             mode="reflect") ** 2))(X / 100)
    np.testing.assert_allclose(grads["x"], ref, rtol=1e-5)
