"""``flowjob/_src/ops/_random.py``: dropout and random masks."""

from __future__ import annotations

from typing import Tuple

import numpy as np
import pytest
from ops_helpers import (
    sgd,
)

import flowjob as flow
import flowjob.typing as tp


def _dropout_train_job(rate, noise_shape=None):
    @flow.global_function(type="train")
    def job(x: tp.Numpy.Placeholder((200, 500))) -> tp.Numpy:
        v = flow.get_variable("v", shape=(1,), initializer=flow.ones_initializer())
        y = flow.nn.dropout(x * v, rate=rate, noise_shape=noise_shape)
        sgd(0.0).minimize(flow.math.reduce_mean(y))
        return y

    return job


def test_random_ops_with_one_seed_draw_one_stream():
    x = np.ones((64, 32), np.float32)
    seen = []

    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((64, 32))) -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        w = flow.get_variable("w", shape=(1,), initializer=flow.zeros_initializer())
        v = x + w
        a = flow.nn.dropout(v, 0.5, seed=7, name="a")
        b = flow.nn.fused_bias_add_dropout(v, flow.zeros((32,)), rate=0.5, seed=7)
        c = flow.nn.dropout(v, 0.5, name="c")
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.0]), momentum=0
        ).minimize(flow.math.reduce_sum(a + b + c))
        return a, b, c

    for _ in range(2):
        seen.append(train(x))
    (a1, b1, c1), (a2, _, _) = seen
    np.testing.assert_array_equal(a1, b1)  # one seed, one mask
    assert not np.array_equal(a1, c1)
    assert not np.array_equal(a1, a2)  # a new mask every step


def test_dropout_in_train_jobs_drops_at_rate_and_rescales():
    job = _dropout_train_job(0.3)
    x = np.ones((200, 500), np.float32)
    first, second = job(x), job(x)
    for y in (first, second):
        dropped = np.mean(y == 0)
        assert abs(dropped - 0.3) < 0.01  # 100k draws: the std of the rate is 0.0015
        np.testing.assert_allclose(y[y != 0], 1 / 0.7, rtol=1e-6)
        assert abs(y.mean() - 1.0) < 0.03  # inverted dropout keeps the expectation
    assert (first != second).mean() > 0.3  # each call draws a new mask


def test_dropout_noise_shape_shares_the_decision():
    job = _dropout_train_job(0.5, noise_shape=(200, 1))
    y = job(np.ones((200, 500), np.float32))
    rows = y[:, 0]
    assert np.all(y == rows[:, None])
    assert 0.3 < np.mean(rows == 0) < 0.7


def test_dropout_is_identity_in_predict_jobs_and_at_rate_zero():
    same = {}

    @flow.global_function()
    def predict(x: tp.Numpy.Placeholder((4, 5))) -> tp.Numpy:
        same["predict"] = flow.nn.dropout(x, rate=0.9) is x
        return flow.nn.dropout(x, rate=0.5)

    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((4, 5))) -> tp.Numpy:
        v = flow.get_variable("v", shape=(1,), initializer=flow.ones_initializer())
        y = x * v
        same["rate0"] = flow.nn.dropout(y, rate=0.0) is y
        sgd(0.0).minimize(flow.math.reduce_mean(y))
        return flow.nn.dropout(y, rate=0.0)

    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    np.testing.assert_array_equal(predict(x), x)
    np.testing.assert_array_equal(train(x), x)
    assert same == {"predict": True, "rate0": True}


@pytest.mark.parametrize("rate", [1.0, -0.1, 1.5])
def test_dropout_rejects_rates_outside_unit_interval(rate):
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 2))) -> tp.Numpy:
        return flow.nn.dropout(x, rate=rate)

    with pytest.raises(flow.OpError, match=r"flow.nn.dropout: rate must be a float in \[0, 1\)"):
        job(np.zeros((2, 2), np.float32))


def test_bernoulli_draws_ones_at_the_given_probabilities():
    @flow.global_function()
    def job(p: tp.Numpy.Placeholder((4, 20000))) -> tp.Numpy:
        return flow.random.bernoulli(p, dtype=flow.int32)

    p = np.repeat(np.array([[0.0], [0.2], [0.7], [1.0]], np.float32), 20000, axis=1)
    first, second = job(p), job(p)
    assert first.dtype == np.int32 and set(np.unique(first)) <= {0, 1}
    # four binomial(20000, p) rates: 5 standard deviations is at most 0.017
    np.testing.assert_allclose(first.mean(axis=1), [0.0, 0.2, 0.7, 1.0], atol=0.017)
    assert not np.array_equal(first, second)  # a new draw per call


def test_shuffle_permutes_rows_and_permutation_indices_are_a_permutation():
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((50, 3), dtype=flow.int32)) -> Tuple[tp.Numpy, tp.Numpy]:
        return (flow.random.shuffle(x), flow.random.generate_random_batch_permutation_indices(x))

    x = np.repeat(np.arange(50, dtype=np.int32)[:, None], 3, axis=1)
    shuffled, order = job(x)
    assert order.dtype == np.int32 and sorted(order.tolist()) == list(range(50))
    assert sorted(shuffled[:, 0].tolist()) == list(range(50))
    np.testing.assert_array_equal(shuffled, x[shuffled[:, 0]])  # whole rows move
    assert shuffled[:, 0].tolist() != list(range(50))


def test_gen_seed_keeps_a_given_seed_and_draws_one_otherwise():
    assert flow.random.gen_seed(7) == (7, True)
    (a, has_a), (b, _) = flow.random.gen_seed(), flow.random.gen_seed()
    assert has_a and isinstance(a, int) and a != b
