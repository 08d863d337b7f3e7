"""A call that is interrupted (Ctrl-C at any moment) or fails on the host (a Python
kernel that raises) leaves every variable as before the call or as after it: the common
``except KeyboardInterrupt: flow.checkpoint.save(...)`` keeps all training done so far."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import threading
import time

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp

LR = 2.0**-10  # w after n steps is -n * LR * X exactly in float32
X = np.array([1.0, 2.0, 4.0], np.float32)
STEP = "System-Train-TrainStep-"


def define_train(kernel_op: str | None = None, name: str = "train", returns=tp.Numpy, watch=None):
    def train(x: tp.Numpy.Placeholder((3,))) -> returns:
        w = flow.get_variable("w", (3,), initializer=flow.zeros_initializer())
        y = w * x
        if watch is not None:  # handlers make a blocking call deliver on the caller's thread
            flow.watch(y, watch)
        if kernel_op is not None:
            y = (
                flow.user_op_builder("k")
                .Op(kernel_op)
                .Input("in", [y])
                .Output("out")
                .Build()
                .InferAndTryRun()
                .SoleOutputBlob()
            )
        loss = flow.math.reduce_sum(y)
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [LR]), momentum=0
        ).minimize(loss)
        return loss

    train.__name__ = name
    return flow.global_function(type="train")(train)


def consistent(variables: dict[str, np.ndarray]) -> int:
    """The completed steps the variables say (every train job's TrainStep); asserts the
    weights went exactly that far."""
    steps = sum(int(v.reshape(-1)[0]) for k, v in variables.items() if k.startswith(STEP))
    np.testing.assert_array_equal(variables["w"], -steps * LR * X)
    return steps


def current() -> dict[str, np.ndarray]:
    return {k: v.numpy() for k, v in flow.get_all_variables().items()}


def interrupt_after(delay: float) -> threading.Thread:
    """A thread (to start) that sends this process SIGINT, as Ctrl-C does, after ``delay``."""

    def fire():
        time.sleep(delay)
        os.kill(os.getpid(), signal.SIGINT)

    return threading.Thread(target=fire, daemon=True)


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals")
@pytest.mark.parametrize("watched", [False, True], ids=["plain", "watched"])
def test_ctrl_c_at_random_points_then_checkpoint_save(fresh_session, tmp_path, watched):
    handled = []
    train = define_train(watch=handled.append if watched else None)
    launch = define_train(name="train_launched", returns=tp.Callback[tp.Numpy])
    results = []
    train(X)  # compiled before the trials: they interrupt the loop, not the compiler
    launch(X)(results.append)
    rng = random.Random(1234)
    completed = 0
    for trial in range(24):
        fire = interrupt_after(rng.uniform(0.0, 0.03))
        path = tmp_path / f"trial{trial}"
        try:
            fire.start()
            while True:  # blocking calls and launched ones with callbacks, mixed
                train(X)
                launch(X)(results.append)
        except KeyboardInterrupt:
            flow.checkpoint.save(str(path))
        fire.join()
        flow.sync_default_session()  # no bookkeeping error left (a slot released twice)
        live = current()
        steps = consistent(live)
        assert steps >= completed
        completed = steps
        saved = {k: v.numpy() for k, v in flow.checkpoint.get(str(path)).items()}
        assert set(saved) == set(live)
        for name, value in live.items():
            np.testing.assert_array_equal(saved[name], value, err_msg=name)
    train(X)  # the session goes on training from there
    assert consistent(current()) == completed + 1
    assert bool(handled) is watched


@pytest.mark.parametrize("eager", [False, True], ids=["lazy", "eager"])
@pytest.mark.parametrize("where", ["forward", "backward"])
def test_failing_python_kernel_keeps_state_then_training_goes_on(
    fresh_session, tmp_path, where, eager
):
    flow.enable_eager_execution(eager)
    fail = {"on": False}

    def forward(x):
        if fail["on"] and where == "forward":
            raise ValueError("kernel refused")
        return x

    def backward(x, y, dy):
        if fail["on"] and where == "backward":
            raise ValueError("kernel refused")
        return dy

    flow.register_python_op("passthrough", forward, backward=backward)
    train = define_train("passthrough")
    for _ in range(3):
        train(X)
    fail["on"] = True
    with pytest.raises(flow.userop.PythonKernelError) as err:
        train(X)
    message = str(err.value)
    assert f"the {where} kernel of op 'k' (passthrough) in job 'train'" in message
    assert "test_interrupted_steps.py" in message and "kernel refused" in message
    assert consistent(current()) == 3
    fail["on"] = False
    train(X)
    flow.checkpoint.save(str(tmp_path / "after"))
    saved = {k: v.numpy() for k, v in flow.checkpoint.get(str(tmp_path / "after")).items()}
    assert consistent(saved) == 4


@pytest.mark.timeout(240)
@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals")
def test_ctrl_c_during_model_fit_then_checkpoint_save(fresh_session, tmp_path):
    """Ctrl-C at random points of ``Model.fit`` (clearing the session, tracing, compiling,
    training): the interrupt reaches the caller every time, promptly, and the
    ``except KeyboardInterrupt: flow.checkpoint.save(...)`` pattern saves the variables of
    the steps completed so far. Before the fix, an interrupt between counting a completion
    and queuing it made the next wait hang, one that queued a call twice raised 'Semaphore
    released too many times', and one that landed in JAX's garbage-collection callback was
    swallowed, so fit trained on forever."""

    class Data(flow.model.NumpyDataModule):
        def forward(self, step_idx, optimizer_idx=0):
            return (X * (step_idx % 3 + 1),)

    class Linear(flow.model.Model):
        def training_step(self, batch, optimizer_idx):
            (x,) = batch
            w = flow.get_variable("w", (3,), initializer=flow.zeros_initializer())
            return flow.math.reduce_sum(w * x)

        def configure_optimizers(self):
            return flow.optimizer.SGD(
                flow.optimizer.PiecewiseConstantScheduler([], [LR]), momentum=0
            )

    def fit_consistent(variables: dict[str, np.ndarray]) -> int:
        """fit starts from a cleared session: step s adds (s % 3 + 1) * LR * X to -w."""
        steps = sum(int(v.reshape(-1)[0]) for k, v in variables.items() if k.startswith(STEP))
        factor = sum(s % 3 + 1 for s in range(steps))
        np.testing.assert_array_equal(variables.get("w", 0 * X), -factor * LR * X)
        return steps

    train = flow.model.TrainingConfig()
    train.config_data(Data())
    model = Linear()
    model.fit(training_config=train, max_steps=2)
    rng = random.Random(99)
    trained = 0
    for trial in range(24):
        fire = interrupt_after(rng.uniform(0.0, 0.15))
        path = tmp_path / f"trial{trial}"
        interrupted = False
        try:
            fire.start()
            model.fit(training_config=train, max_steps=10**9)
        except KeyboardInterrupt:
            interrupted = True
            flow.checkpoint.save(str(path))
        fire.join()
        assert interrupted, "Ctrl-C did not reach the caller of fit"
        flow.sync_default_session()  # no bookkeeping error left (a slot released twice)
        live = current()
        trained += fit_consistent(live)
        saved = {k: v.numpy() for k, v in flow.checkpoint.get(str(path)).items()}
        assert set(saved) == set(live)
        for name, value in live.items():
            np.testing.assert_array_equal(saved[name], value, err_msg=name)
    assert trained > 0  # some trials interrupted training itself, not only its setup
    model.fit(training_config=train, max_steps=2)
    assert fit_consistent(current()) == 2


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals")
def test_ctrl_c_that_python_swallows_is_raised_at_the_next_call(fresh_session):
    """A Ctrl-C whose handler runs inside a ``__del__`` or a garbage-collection callback
    (JAX registers one) is printed as "Exception ignored" and lost by Python: flowjob raises
    it at the next job call (after that call's step), so a training loop still stops."""
    train = define_train()
    train(X)  # flowjob's SIGINT handler is in place from the first call

    class Dropped:
        def __del__(self):
            signal.raise_signal(signal.SIGINT)  # the handler runs here, where raising is lost

    Dropped()
    with pytest.raises(KeyboardInterrupt):
        train(X)
    assert consistent(current()) == 2  # the interrupted call's step completed
    train(X)  # raised once only
    assert consistent(current()) == 3


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals")
def test_ctrl_c_that_tracing_swallows_is_raised_when_the_trace_ends(fresh_session):
    """JAX catches every exception at places while it traces and compiles (a bare
    ``except:`` around reading a compiled program's layouts); a Ctrl-C landing there was lost
    and ``Model.fit`` trained on. flowjob raises it as the trace or compilation ends."""
    train = define_train()
    train(X)  # flowjob's SIGINT handler is in place from the first call

    traces = []

    @flow.global_function()
    def swallowing(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        traces.append(1)
        if len(traces) == 1:  # Ctrl-C during the first trace only
            with contextlib.suppress(BaseException):  # as JAX's bare except does
                signal.raise_signal(signal.SIGINT)
        return x + 1

    with pytest.raises(KeyboardInterrupt):
        swallowing(X)
    np.testing.assert_array_equal(swallowing(X), X + 1)  # traced again
    assert len(traces) == 2


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals")
def test_ctrl_c_during_sync_waits_for_deliveries_then_raises(fresh_session, capfd):
    """Ctrl-C in ``sync_default_session()`` while callbacks are queued: it says what it waits
    for, lets every queued delivery run, then raises ``KeyboardInterrupt`` (it was swallowed
    before, so a loop around the sync went on)."""

    @flow.global_function()
    def slow(x: tp.Numpy.Placeholder((1,))) -> tp.Callback[tp.Numpy]:
        return x + 1

    delivered = []

    def callback(r):
        time.sleep(0.02)
        delivered.append(float(r[0]))

    for i in range(30):
        slow(np.array([i], np.float32))(callback)
    fire = interrupt_after(0.1)
    fire.start()
    with pytest.raises(KeyboardInterrupt):
        flow.sync_default_session()
    fire.join()
    assert delivered == [i + 1.0 for i in range(30)]
    assert "press Ctrl-C again" in capfd.readouterr().err


def test_real_shapes_that_do_not_fit_keep_state(fresh_session):
    """A step whose data-dependent real shapes fail their op's rule on the host, inside the
    program, is refused clearly and keeps the state (its state was not donated)."""

    @flow.global_function(type="train")
    def job(x: tp.Numpy.Placeholder((6,)), y: tp.Numpy.Placeholder((6,))) -> tp.ListNumpy:
        w = flow.get_variable("w", (6,), initializer=flow.ones_initializer())
        loss = flow.gather_nd(w * 3.0, flow.argwhere(x)) + flow.gather_nd(w, flow.argwhere(y))
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.5]), momentum=0
        ).minimize(loss)
        return loss

    x = np.array([0, 2, 0, 5, 1, 0], np.float32)
    job(x, x)
    before = current()
    with pytest.raises(
        flow.JobArgumentError, match=r"real shapes of its inputs \[\(3,\), \(6,\)\]"
    ):
        job(x, np.ones(6, np.float32))
    after = current()
    for name, value in before.items():
        np.testing.assert_array_equal(after[name], value, err_msg=name)
    job(x, x)  # training goes on
