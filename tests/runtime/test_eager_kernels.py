"""Eager mode's per-op kernels (runtime/_eager_kernels.py): one compiled kernel per op,
attributes and shapes, reused by later calls; lowerings that need concrete values still run."""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.runtime import _eager_kernels

pytestmark = pytest.mark.usefixtures("fresh_session")


def test_eager_train_calls_reuse_their_kernels_and_match_the_lazy_job():
    def define():
        @flow.global_function(type="train")
        def train(x: tp.Numpy.Placeholder((8, 4))) -> tp.Numpy:
            w = flow.get_variable("w", (4, 3), initializer=flow.constant_initializer(0.1))
            h = flow.nn.relu(flow.matmul(x, w))
            loss = flow.math.reduce_mean(flow.nn.softmax(h) * h)
            flow.optimizer.SGD(
                flow.optimizer.PiecewiseConstantScheduler([], [0.5]), momentum=0
            ).minimize(loss)
            return loss

        return train

    x = np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32)
    lazy = define()
    want = [lazy(x).item() for _ in range(3)]
    flow.clear_default_session()
    flow.enable_eager_execution(True)
    eager = define()
    got = [eager(x).item()]
    kernels = len(_eager_kernels._kernels)
    got += [eager(x).item() for _ in range(2)]
    assert len(_eager_kernels._kernels) == kernels  # the later calls compiled nothing new
    np.testing.assert_allclose(got, want, rtol=1e-6)


def _needs_values(x, *, limit):
    # Python control flow on the input's value: cannot be traced under jax.jit
    return x * 2 if float(jnp.max(x)) > limit else x - 1


def test_a_lowering_that_needs_concrete_values_runs_unjitted():
    x = jnp.arange(4.0)
    for _ in range(2):
        np.testing.assert_array_equal(
            _eager_kernels.run(_needs_values, [x], {"limit": 2.0}), np.arange(4.0) * 2
        )
    lowering = functools.partial(_needs_values, limit=10.0)
    np.testing.assert_array_equal(_eager_kernels.run(lowering, [x], {}), np.arange(4.0) - 1)
