"""The short way of warm ``-> tp.Numpy`` calls (runtime/_direct.py) keeps every behaviour of
the general one: the same argument errors, call order behind pending callbacks, errors of
earlier callbacks raised, redefinition and cleared sessions refused, results of their own."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob.errors import CallbackError, JobArgumentError, JobDefinitionError

pytestmark = pytest.mark.usefixtures("fresh_session")

WARM = 3  # calls after which a job takes the short way


def _scale_job(name: str = "scale"):
    def scale(x: tp.Numpy.Placeholder((2, 3)), k: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(3,), initializer=flow.constant_initializer(2.0))
        return x * w + k

    scale.__name__ = name
    return flow.global_function()(scale)


def flow_session_busy() -> bool:
    from flowjob._src.runtime._session import default_session

    return default_session().completion.tasks > 0


def _args(seed: int):
    rng = np.random.default_rng(seed)
    return rng.random((2, 3), dtype=np.float32), rng.random((1,), dtype=np.float32)


def test_warm_calls_compute_what_numpy_does_into_arrays_of_their_own():
    job = _scale_job()
    results = []
    for i in range(WARM + 5):
        x, k = _args(i)
        out = job(x, k)
        np.testing.assert_allclose(out, x * 2.0 + k, rtol=1e-6)
        results.append((out, x * 2.0 + k))
    for out, want in results:  # no later call wrote into an earlier result
        np.testing.assert_allclose(out, want, rtol=1e-6)
    results[-1][0][0, 0] = 123.0  # writable, and only this result changes
    np.testing.assert_allclose(job(*_args(0)), _args(0)[0] * 2.0 + _args(0)[1], rtol=1e-6)


@pytest.mark.parametrize(
    "bad, message",
    [
        ((np.zeros((2, 3), np.complex64), np.zeros(1, np.float32)), "complex64"),
        ((np.zeros((3, 3), np.float32), np.zeros(1, np.float32)), "(2, 3)"),
        (([[0.0] * 3] * 2, np.zeros(1, np.float32)), "list"),
        ((np.zeros((2, 3), np.float32),), "takes 2 argument(s)"),
    ],
)
def test_a_bad_argument_after_warm_calls_gets_the_first_calls_error(bad, message):
    cold = _scale_job("cold")
    with pytest.raises(JobArgumentError) as first:
        cold(*bad)
    flow.clear_default_session()
    job = _scale_job("warm")
    for i in range(WARM):
        job(*_args(i))
    with pytest.raises(JobArgumentError) as warm:
        job(*bad)
    assert message in str(warm.value)
    assert str(warm.value) == str(first.value).replace("'cold'", "'warm'")
    np.testing.assert_allclose(job(*_args(1)), _args(1)[0] * 2.0 + _args(1)[1], rtol=1e-6)


def test_converted_arguments_after_warm_calls_are_converted_as_on_the_first_call():
    job = _scale_job()
    for i in range(WARM):
        job(*_args(i))
    x, k = _args(7)
    for args in [(x.astype(np.float64), k), (np.asfortranarray(x), k), (x, k.astype(np.int32))]:
        want = args[0].astype(np.float32) * 2.0 + args[1].astype(np.float32)
        np.testing.assert_allclose(job(*args), want, rtol=1e-6)


def test_keyword_arguments_are_refused_on_warm_calls_too():
    job = _scale_job()
    for i in range(WARM):
        job(*_args(i))
    x, k = _args(0)
    with pytest.raises(TypeError, match="positional arguments only"):
        job(x, k=k)


def test_a_warm_call_waits_for_the_pending_callback_of_an_earlier_call():
    job = _scale_job()

    @flow.global_function()
    def slow(x: tp.Numpy.Placeholder((1,))) -> tp.Callback[tp.Numpy]:
        return x + 1.0

    for i in range(WARM):
        job(*_args(i))
    seen = []
    started = threading.Event()

    def callback(v: np.ndarray) -> None:
        started.set()
        time.sleep(0.3)
        seen.append(float(v[0]))

    slow(np.ones(1, np.float32))(callback)
    started.wait(5)
    out = job(*_args(4))
    assert seen == [2.0]  # the earlier call completed before this one returned
    np.testing.assert_allclose(out, _args(4)[0] * 2.0 + _args(4)[1], rtol=1e-6)


@pytest.mark.parametrize("wait", [False, True])
def test_a_warm_call_raises_what_an_earlier_callback_raised(wait):
    job = _scale_job()

    @flow.global_function()
    def other(x: tp.Numpy.Placeholder((1,))) -> tp.Callback[tp.Numpy]:
        return x

    for i in range(WARM):
        job(*_args(i))

    def broken(v: np.ndarray) -> None:
        raise ValueError("callback broke")

    other(np.ones(1, np.float32))(broken)
    if wait:  # the callback ran already: the short way raises its error
        deadline = time.monotonic() + 10
        while flow_session_busy() and time.monotonic() < deadline:
            time.sleep(0.01)
    with pytest.raises(CallbackError, match="callback broke"):
        job(*_args(0))
    np.testing.assert_allclose(job(*_args(0)), _args(0)[0] * 2.0 + _args(0)[1], rtol=1e-6)


def test_a_redefined_job_refuses_its_old_function_after_warm_calls():
    old = _scale_job()
    for i in range(WARM):
        old(*_args(i))
    new = _scale_job()
    with pytest.raises(JobDefinitionError, match="redefined"):
        old(*_args(0))
    np.testing.assert_allclose(new(*_args(0)), _args(0)[0] * 2.0 + _args(0)[1], rtol=1e-6)


def test_a_cleared_session_refuses_its_warm_job():
    job = _scale_job()
    for i in range(WARM):
        job(*_args(i))
    flow.clear_default_session()
    with pytest.raises(JobDefinitionError, match="clear_default_session"):
        job(*_args(0))


def test_warm_train_calls_update_the_variables_as_sgd_does():
    @flow.global_function(type="train")
    def fit(x: tp.Numpy.Placeholder((4, 3)), y: tp.Numpy.Placeholder((4,))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(3,), initializer=flow.zeros_initializer())
        err = flow.math.reduce_sum(x * w, axis=[1]) - y
        loss = flow.math.reduce_mean(err * err)
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0
        ).minimize(loss)
        return loss

    rng = np.random.default_rng(0)
    x = rng.random((4, 3), dtype=np.float32)
    y = rng.random(4, dtype=np.float32)
    w = np.zeros(3, np.float64)
    for _ in range(WARM + 5):
        err = x.astype(np.float64) @ w - y
        want = np.mean(err * err)
        np.testing.assert_allclose(fit(x, y), want, rtol=1e-5)
        w -= 0.1 * (2.0 / 4) * x.T.astype(np.float64) @ err
    np.testing.assert_allclose(flow.get_all_variables()["w"], w, rtol=1e-5)
