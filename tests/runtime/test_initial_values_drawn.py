"""Initial values are drawn on a worker thread while the job's program compiles (issue 35,
graph/_drawing.py): the first call overlaps the two, and a read of a variable still being
drawn waits for its value."""

from __future__ import annotations

import logging
import threading

import jax
import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.graph._drawing import Values
from flowjob._src.ops import _distributions
from tests.timeouts import scaled

pytestmark = pytest.mark.usefixtures("fresh_session")


class _StepCompiled(logging.Handler):
    """Set once the main thread finished compiling a program (``jax.log_compiles``)."""

    def __init__(self) -> None:
        super().__init__()
        self.done = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        main = threading.current_thread() is threading.main_thread()
        if main and record.getMessage().startswith("Finished XLA compilation"):
            self.done.set()


def _first_call(momentum: float, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The loss of a fresh session's first train step (learning rate 0) and its variable."""
    flow.clear_default_session()

    @flow.global_function(type="train")
    def job(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        w = flow.get_variable("w", (3, 5), initializer=flow.random_normal_initializer())
        loss = flow.math.reduce_mean(flow.math.square(flow.matmul(x, w)))
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.0]), momentum=momentum
        ).minimize(loss)
        return loss

    loss = job(x)
    return loss, np.asarray(flow.get_all_variables()["w"])


@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_the_step_compiles_before_the_initial_values_are_drawn(monkeypatch, momentum):
    """Every draw waits until the main thread has compiled the step: drawn on the caller's
    thread, as before, the first draw would wait for a compile that never starts. The values
    are those an undelayed session draws."""
    x = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    _, undelayed = _first_call(momentum, x)
    compiled = _StepCompiled()
    waited, real = [], _distributions.draw

    def draw_after_the_step(*args, **kwargs):
        waited.append(compiled.done.wait(timeout=scaled(30)))
        return real(*args, **kwargs)

    monkeypatch.setattr(_distributions, "draw", draw_after_the_step)
    jax_logger = logging.getLogger("jax")
    jax_logger.addHandler(compiled)
    try:
        with jax.log_compiles():
            loss, w = _first_call(momentum, x)
    finally:
        jax_logger.removeHandler(compiled)
    assert waited == [True]
    np.testing.assert_array_equal(w, undelayed)  # learning rate 0: still the initial value
    assert float(np.std(w)) > 0.1
    np.testing.assert_allclose(loss, np.mean((x @ w) ** 2), rtol=1e-5)


def _pending(values: Values, name: str, compute) -> None:
    values.later({name: jax.ShapeDtypeStruct((2,), np.float32)}, compute)


def test_a_read_waits_for_the_value_and_a_write_replaces_it():
    values, gate = Values(), threading.Event()
    _pending(values, "a", lambda: (gate.wait(), {"a": np.ones(2, np.float32)})[1])
    _pending(values, "b", lambda: {"b": np.full(2, 2.0, np.float32)})
    assert values.spec("a").shape == (2,) and "a" in values and len(values) == 2
    values["b"] = np.zeros(2, np.float32)  # written before its draw finished
    gate.set()
    assert dict(values)["a"].tolist() == [1.0, 1.0]  # dict() reads through the waits
    assert values["b"].tolist() == [0.0, 0.0]
    assert values.spec("a") is values["a"]  # kept once read


def test_a_failed_draw_raises_at_every_read_and_loses_nothing_else():
    values = Values()
    values["kept"] = np.ones(1)

    def fail():
        raise ValueError("initializer of variable 'bad' returned shape (3,), expected (2,)")

    _pending(values, "bad", fail)
    for read in (lambda: values["bad"], values.copy, lambda: list(values.items())):
        with pytest.raises(ValueError, match="'bad'"):
            read()
    assert values["kept"].tolist() == [1.0]


def test_held_draws_wait_for_the_end_of_the_hold_or_a_read():
    values, ran = Values(), []

    def draw(name):
        return lambda: (ran.append(name), {name: np.full(1, len(ran), np.float32)})[1]

    with values.held():
        _pending(values, "a", draw("a"))
        _pending(values, "b", draw("b"))
        assert ran == [] and values.spec("a").shape == (2,)
    assert values["b"].tolist() == [2.0] and ran == ["a", "b"]  # in the order entered
    with values.held():
        _pending(values, "c", draw("c"))
        assert values["c"].tolist() == [3.0]  # a read inside ends the hold
        _pending(values, "d", draw("d"))  # drawn at once from then on
    assert values["d"].tolist() == [4.0]
