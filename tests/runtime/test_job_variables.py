"""Variables shared by several jobs: ``trainable=`` is each job's own (the GAN pattern), and a
job argument may share its name with a variable. References are NumPy SGD steps."""

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.ops.initializers import constant_initializer

LR = 0.1


pytestmark = pytest.mark.usefixtures("fresh_session")


def sgd(loss):
    flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [LR]), momentum=0).minimize(
        loss
    )


def two_layers(x, g_trainable, d_trainable):
    """loss = sum(x * g * d) with g and d each (3,) and initialised to 1 and 2."""
    g = flow.get_variable(
        "g", shape=(3,), initializer=constant_initializer(1.0), trainable=g_trainable
    )
    d = flow.get_variable(
        "d", shape=(3,), initializer=constant_initializer(2.0), trainable=d_trainable
    )
    return flow.math.reduce_sum(x * g * d)


def test_trainable_is_per_job_as_in_a_gan():
    @flow.global_function(type="train")
    def train_g(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        loss = two_layers(x, g_trainable=True, d_trainable=False)
        sgd(loss)
        return loss

    @flow.global_function(type="train")
    def train_d(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        loss = two_layers(x, g_trainable=False, d_trainable=True)
        sgd(loss)
        return loss

    x = np.array([1.0, 2.0, 3.0], np.float32)
    g, d = np.ones(3), np.full(3, 2.0)
    for _ in range(2):  # alternate, as DCGAN does: D first, then G
        train_d(x)
        d = d - LR * x * g  # only d moves in train_d
        train_g(x)
        g = g - LR * x * d  # only g moves in train_g
    got = flow.get_all_variables()
    np.testing.assert_allclose(got["g"].numpy(), g, rtol=1e-5)
    np.testing.assert_allclose(got["d"].numpy(), d, rtol=1e-5)


def test_first_request_in_a_job_decides_its_flag():
    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        frozen = flow.get_variable(
            "w", shape=(3,), initializer=constant_initializer(1.0), trainable=False
        )
        again = flow.get_variable(
            "w", shape=(3,), initializer=constant_initializer(1.0), trainable=True
        )
        loss = flow.math.reduce_sum(x * frozen * again)
        sgd(loss)
        return loss

    train(np.ones(3, np.float32))
    np.testing.assert_array_equal(flow.get_all_variables()["w"].numpy(), np.ones(3))


def test_job_argument_and_variable_share_a_name():
    @flow.global_function(type="train")
    def train(w: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        var = flow.get_variable("w", shape=(3,), initializer=constant_initializer(0.5))
        loss = flow.math.reduce_sum(w * var)
        sgd(loss)
        return loss

    x = np.array([1.0, -1.0, 2.0], np.float32)
    loss = train(x)
    np.testing.assert_allclose(loss, np.sum(x * 0.5), rtol=1e-6)
    np.testing.assert_allclose(flow.get_all_variables()["w"].numpy(), 0.5 - LR * x, rtol=1e-6)
