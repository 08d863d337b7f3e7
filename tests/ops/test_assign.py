"""``flowjob/_src/ops/_assign.py``: flow.assign and flow.system.assign write variables after a
job."""

from __future__ import annotations

import numpy as np
import pytest
from ops_helpers import sgd, variables

import flowjob as flow
import flowjob.typing as tp


@pytest.mark.parametrize("spelling", ["assign", "system.assign"])
def test_assign_writes_the_value_after_the_call(spelling):
    @flow.global_function(type="train")
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        v = flow.get_variable(
            "v", shape=(2, 3), initializer=flow.zeros_initializer(), trainable=False
        )
        w = flow.get_variable("w", shape=(1,), initializer=flow.zeros_initializer())
        sgd(0.0).minimize(w * 1.0)
        before = v + 0.0
        if spelling == "assign":
            flow.assign(v, v + x)
        else:
            assert flow.system.assign(v, v + x) is v
        return before

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(job(x), np.zeros((2, 3)))  # reads see the old value
    np.testing.assert_array_equal(job(x), x)
    np.testing.assert_array_equal(variables()["v"], 2 * x)


def test_assign_casts_to_the_variable_dtype():
    @flow.global_function(type="train")
    def job(x: tp.Numpy.Placeholder((3,), dtype=flow.int32)) -> tp.Numpy:
        v = flow.get_variable("w", shape=(3,), initializer=flow.zeros_initializer())
        sgd(0.0).minimize(v * 1.0)
        flow.assign(v, x)
        return v

    job(np.array([1, 2, 3], np.int32))
    assert variables()["w"].dtype == np.float32
    np.testing.assert_array_equal(variables()["w"], [1, 2, 3])


def test_predict_jobs_assign_too_and_other_jobs_see_the_value():
    """OneFlow lets a predict job write a variable: the next call, and every other job of
    the session reading it, see the new value (the variables it does not assign keep
    theirs)."""

    @flow.global_function()
    def step(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        v = flow.get_variable("v", shape=(2, 3), initializer=flow.zeros_initializer())
        k = flow.get_variable("k", shape=(3,), initializer=flow.constant_initializer(2.0))
        before = v + 0.0
        flow.assign(v, v * k + x)
        return before

    @flow.global_function()
    def read() -> tp.Numpy:
        return flow.get_variable("v", shape=(2, 3), initializer=flow.zeros_initializer()) + 0.0

    rng = np.random.default_rng(0)
    xs = rng.standard_normal((3, 2, 3)).astype(np.float32)
    want = np.zeros((2, 3), np.float32)
    for x in xs:
        np.testing.assert_array_equal(step(x), want)  # reads see the value before the call
        want = want * 2.0 + x
        np.testing.assert_allclose(read(), want, rtol=1e-6)
    np.testing.assert_array_equal(variables()["k"], [2.0, 2.0, 2.0])


@pytest.mark.parametrize("job_type", ["train", "predict"])
def test_assign_a_job_argument_directly(job_type):
    """The assigned value may be the argument itself (no device op reads it)."""

    @flow.global_function(type=job_type)
    def job(x: tp.Numpy.Placeholder((3,))) -> None:
        v = flow.get_variable("v", shape=(3,), initializer=flow.zeros_initializer())
        if job_type == "train":
            sgd(0.0).minimize(v * 1.0)
        flow.assign(v, x)

    x = np.array([1.5, -2.0, 3.25], np.float32)
    job(x)
    np.testing.assert_array_equal(variables()["v"], x)


def test_a_predict_job_that_assigns_nothing_leaves_its_inputs_alone():
    """Only jobs that write variables donate their state: a plain predict job's variable
    arrays stay valid after the call (no donated buffer is read again)."""

    @flow.global_function()
    def job() -> tp.Numpy:
        return flow.get_variable("u", shape=(2,), initializer=flow.ones_initializer()) * 3.0

    np.testing.assert_array_equal(job(), [3.0, 3.0])
    np.testing.assert_array_equal(variables()["u"], [1.0, 1.0])
    np.testing.assert_array_equal(job(), [3.0, 3.0])


def test_assign_to_a_non_variable_is_an_error():
    @flow.global_function(type="train")
    def bad(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(3,), initializer=flow.zeros_initializer())
        sgd(0.0).minimize(w * x)
        flow.assign(w * 2.0, x)
        return x

    with pytest.raises(flow.OpError, match="must be a variable"):
        bad(np.zeros(3, np.float32))
