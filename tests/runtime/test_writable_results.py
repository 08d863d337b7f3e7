"""Job results are writable NumPy arrays, as OneFlow's were (its op tests sort them in place),
and writing into one never changes a variable, another result or a later call's values."""

from __future__ import annotations

import gc
from typing import Tuple

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp

pytestmark = pytest.mark.usefixtures("fresh_session")


def _sgd() -> flow.optimizer.SGD:
    return flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.5]), momentum=0)


def test_every_result_form_is_writable_and_independent():
    @flow.global_function()
    def blocking(x: tp.Numpy.Placeholder((4,))) -> Tuple[tp.Numpy, tp.Numpy]:
        y = x * 2.0
        return y, flow.identity(y)

    @flow.global_function()
    def lazy(x: tp.Numpy.Placeholder((2, 2))):
        return x + 1.0

    @flow.global_function()
    def listed(x: tp.Numpy.Placeholder((3,))) -> tp.ListNumpy:
        return x - 1.0

    @flow.global_function()
    def called_back(x: tp.Numpy.Placeholder((3,))) -> tp.Callback[tp.Numpy]:
        return -x

    x = np.array([3.0, 1.0, 4.0, 1.5], np.float32)
    a, b = blocking(x)
    a.sort()  # in place, as test_shuffle.py does
    np.testing.assert_array_equal(a, np.sort(x * 2))
    np.testing.assert_array_equal(b, x * 2)  # the other result is its own array
    np.testing.assert_array_equal(blocking(x)[0], x * 2)  # later calls are not affected

    got = lazy(np.ones((2, 2), np.float32)).get().numpy()
    got[0, 0] = 9.0
    np.testing.assert_array_equal(got, [[9.0, 2.0], [2.0, 2.0]])

    (piece,) = listed(np.arange(3, dtype=np.float32))
    piece *= 2
    np.testing.assert_array_equal(piece, [-2.0, 0.0, 2.0])

    seen = []

    def keep(v: np.ndarray) -> None:
        v += 1.0
        seen.append(v)

    called_back(np.arange(3, dtype=np.float32))(keep)
    flow.sync_default_session()
    np.testing.assert_array_equal(seen[0], [1.0, 0.0, -1.0])


def test_a_result_outlives_the_program_output_it_was_fetched_from():
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((1000,))) -> tp.Numpy:
        return flow.math.sqrt(x)

    x = np.arange(1000, dtype=np.float32)
    kept = [job(x) for _ in range(3)]
    gc.collect()
    for r in kept:
        r[::2] = 0.0
    want = np.sqrt(x)
    want[::2] = 0.0
    for r in kept:
        np.testing.assert_allclose(r, want, rtol=1e-6)


@pytest.mark.parametrize("job_type", ["train", "predict"])
def test_writing_a_returned_variable_leaves_the_variable_alone(job_type):
    """A variable or argument returned unchanged may come back as the program's own input
    array: the host copies it rather than handing out a writable view of it."""

    @flow.global_function(type=job_type)
    def job(x: tp.Numpy.Placeholder((3,))) -> Tuple[tp.Numpy, tp.Numpy]:
        v = flow.get_variable(
            "v", shape=(3,), initializer=flow.constant_initializer(1.0), trainable=False
        )
        if job_type == "train":
            w = flow.get_variable("w", shape=(1,), initializer=flow.zeros_initializer())
            _sgd().minimize(w * 1.0)
        return v, x

    x = np.array([5.0, 6.0, 7.0], np.float32)
    v, back = job(x)
    # seen while tracing: the first program output is the variable's own input array
    assert flow._src.runtime.default_session().compiled_job(job).lowered.step.forwarded == {0}
    v[:] = -1.0
    back[:] = -2.0
    np.testing.assert_array_equal(x, [5.0, 6.0, 7.0])  # the caller's argument
    np.testing.assert_array_equal(flow.get_all_variables()["v"].numpy(), [1.0, 1.0, 1.0])
    again, _ = job(x)
    np.testing.assert_array_equal(again, [1.0, 1.0, 1.0])
