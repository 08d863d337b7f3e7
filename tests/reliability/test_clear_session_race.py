"""Calls racing ``flow.clear_default_session()`` from another thread (issue 48, item 8): every
call either trains (a finite loss, as NumPy computes it for the first step) or raises
``JobDefinitionError`` saying its session was cleared, never a raw ``KeyError`` naming a
variable (10 of them in the round that found it)."""

from __future__ import annotations

import threading
import time

import numpy as np

import flowjob as flow
import flowjob.typing as tp
from flowjob.errors import JobDefinitionError
from tests.timeouts import scaled

X = np.linspace(-1, 1, 32, dtype=np.float32).reshape(8, 4)


def _define():
    @flow.global_function(type="train")
    def T(x: tp.Numpy.Placeholder((8, 4))) -> tp.Numpy:
        h = flow.layers.dense(
            x, 4, name="h", kernel_initializer=flow.ones_initializer(), use_bias=False
        )
        loss = flow.math.reduce_mean(h * h)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0])).minimize(loss)
        return loss

    return T


def test_calls_racing_clear_default_session_raise_a_clear_error(fresh_session):
    jobs = [_define()]
    errors: list[BaseException] = []
    losses: list[float] = []
    stop = threading.Event()

    def caller() -> None:
        while not stop.is_set():
            try:
                losses.append(float(jobs[0](X).mean()))
            except Exception as exc:  # noqa: BLE001 - every one is judged below
                errors.append(exc)

    threads = [threading.Thread(target=caller) for _ in range(4)]
    for thread in threads:
        thread.start()
    try:
        for _ in range(25):
            time.sleep(0.05)
            flow.clear_default_session()
            jobs[0] = _define()
    finally:
        stop.set()
        for thread in threads:
            thread.join(scaled(60))
    assert not any(t.is_alive() for t in threads)
    others = [e for e in errors if not isinstance(e, JobDefinitionError)]
    assert others == [], others[:3]
    expected = float(np.mean((X @ np.ones((4, 4), np.float32)) ** 2))  # lr 0: never moves
    assert losses and np.allclose(losses, expected, rtol=1e-5)
