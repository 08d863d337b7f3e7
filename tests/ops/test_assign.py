"""``flowjob/ops/_assign.py``: flow.assign and flow.system.assign write variables after a job."""

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


def test_assign_casts_to_the_variable_dtype_and_predict_jobs_are_refused():
    @flow.global_function(type="train")
    def job(x: tp.Numpy.Placeholder((3,), dtype=flow.int32)) -> tp.Numpy:
        v = flow.get_variable("w", shape=(3,), initializer=flow.zeros_initializer())
        sgd(0.0).minimize(v * 1.0)
        flow.assign(v, x)
        return v

    job(np.array([1, 2, 3], np.int32))
    assert variables()["w"].dtype == np.float32
    np.testing.assert_array_equal(variables()["w"], [1, 2, 3])

    @flow.global_function()
    def bad(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        flow.assign(x * 2.0, x)
        return x

    with pytest.raises(flow.OpError, match="train jobs only"):
        bad(np.zeros(3, np.float32))


def test_assign_to_a_non_variable_is_an_error():
    @flow.global_function(type="train")
    def bad(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(3,), initializer=flow.zeros_initializer())
        sgd(0.0).minimize(w * x)
        flow.assign(w * 2.0, x)
        return x

    with pytest.raises(flow.OpError, match="must be a variable"):
        bad(np.zeros(3, np.float32))
