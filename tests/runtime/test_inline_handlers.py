"""Handlers of a blocking call run on the calling thread when nothing is pending (issue 17):
same order, exceptions and blocking-call rules as on the completion thread."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.graph import apply_op


def double(x):
    return apply_op("double", lambda a: a * 2, [x], elementwise=True)


pytestmark = pytest.mark.usefixtures("fresh_session")


def _where() -> str:
    t = threading.current_thread()
    return "caller" if t is threading.main_thread() else t.name


def test_handler_thread_is_the_caller_when_idle_else_the_completion_thread():
    log = []

    @flow.global_function()
    def Watched(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        flow.watch(x, lambda v: log.append(("watch", int(v[0]), _where())))
        return double(x)

    @flow.global_function()
    def Slow(x: tp.Numpy.Placeholder((1,))) -> tp.Callback[tp.Numpy]:
        return double(x)

    def slow_callback(r):
        time.sleep(0.2)  # keeps the completion thread busy: the next call finds it pending
        log.append(("slow", int(r[0]), _where()))

    assert Watched(np.array([1], np.float32))[0] == 2
    assert log == [("watch", 1, "caller")]
    Slow(np.array([5], np.float32))(slow_callback)
    assert Watched(np.array([2], np.float32))[0] == 4
    # pending work first, then this call's handler, on the completion thread behind it
    assert log[1:] == [("slow", 10, "flowjob-completion"), ("watch", 2, "flowjob-completion")]
    assert Watched(np.array([3], np.float32))[0] == 6  # idle again: back on the caller
    assert log[3:] == [("watch", 3, "caller")]


def test_order_with_interleaved_async_calls():
    log, threads = [], set()

    def watch_handler(v: tp.Numpy):
        threads.add(_where())
        log.append(("watch", int(v[0])))

    @flow.global_function()
    def Blocking(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        flow.watch(x, watch_handler)
        return double(x)

    @flow.global_function()
    def Async(x: tp.Numpy.Placeholder((1,))) -> tp.Callback[tp.Numpy]:
        flow.watch(x, lambda v: log.append(("async-watch", int(v[0]))))
        return double(x)

    @flow.global_function()
    def Lazy(x: tp.Numpy.Placeholder((1,))):
        return double(x)

    rng = np.random.default_rng(0)
    expected = []
    for i in range(300):
        kind = rng.integers(0, 4)  # two blocking kinds: runs of blocking calls are common
        x = np.array([i], np.float32)
        if kind == 0:
            Async(x)(lambda r: log.append(("cb", int(r[0]) // 2)))
            expected += [("async-watch", i), ("cb", i)]
        elif kind == 1:
            Lazy(x).async_get(lambda r: log.append(("lazy", int(r.numpy()[0]) // 2)))
            expected += [("lazy", i)]
        else:
            out = Blocking(x)
            log.append(("ret", int(out[0]) // 2))
            expected += [("watch", i), ("ret", i)]
    flow.sync_default_session()
    assert log == expected
    assert "caller" in threads  # the inline path ran (every call after a blocking one is idle)


def test_jobs_launched_by_an_inline_handler_complete_after_its_remaining_handlers():
    log = []

    @flow.global_function()
    def Inner(x: tp.Numpy.Placeholder((1,))) -> tp.Callback[tp.Numpy]:
        return double(x)

    def first(v: tp.Numpy):
        log.append(("first", _where()))
        Inner(v)(lambda r: log.append(("inner-cb", _where())))

    def second(v: tp.Numpy):
        time.sleep(0.1)  # the inner call completes meanwhile; its callback must still wait
        log.append(("second", _where()))

    @flow.global_function()
    def Outer(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        flow.watch(x, first)
        flow.watch(x, second)
        return double(x)

    Outer(np.ones(1, np.float32))
    flow.sync_default_session()
    assert log == [("first", "caller"), ("second", "caller"), ("inner-cb", "flowjob-completion")]


def test_exception_from_an_inline_handler_is_raised_once_by_its_call_chained():
    seen = []

    def handler(v: tp.Numpy):
        seen.append((int(v[0]), _where()))
        if v[0] == 1:
            raise KeyError("inline handler failed")

    @flow.global_function()
    def Job(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        flow.watch(x, handler)
        return double(x)

    assert Job(np.array([0], np.float32))[0] == 0
    with pytest.raises(flow.CallbackError, match="inline handler failed") as info:
        Job(np.array([1], np.float32))
    assert isinstance(info.value.__cause__, KeyError)
    flow.sync_default_session()  # raised once only
    assert Job(np.array([2], np.float32))[0] == 4
    assert seen == [(0, "caller"), (1, "caller"), (2, "caller")]


def test_blocking_call_inside_an_inline_handler_fails_like_on_the_completion_thread():
    log = []

    @flow.global_function()
    def Inner(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        flow.watch(x, lambda v: log.append("inner-watch"))
        return double(x)

    def handler(v: tp.Numpy):
        log.append("outer-watch")
        Inner(v)  # would wait for the handler that calls it

    @flow.global_function()
    def Outer(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        flow.watch(x, handler)
        return double(x)

    with pytest.raises(flow.CallbackError, match="would wait for itself"):
        Outer(np.ones(1, np.float32))
    flow.sync_default_session()
    # the inner call was dispatched before it failed to wait: it completes, after the outer
    assert log == ["outer-watch", "inner-watch"]


def test_sync_from_another_thread_waits_for_inline_handlers():
    started, release, events = threading.Event(), threading.Event(), []

    def handler(v: tp.Numpy):
        started.set()
        release.wait(5)
        events.append("handler")

    @flow.global_function()
    def Job(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        flow.watch(x, handler)
        return double(x)

    release.set()
    Job(np.zeros(1, np.float32))  # compiled; nothing pending now
    events.clear()
    started.clear()
    release.clear()
    caller = threading.Thread(target=lambda: Job(np.ones(1, np.float32)))
    caller.start()
    assert started.wait(5)

    def syncer():
        flow.sync_default_session()
        events.append("synced")

    waiter = threading.Thread(target=syncer)
    waiter.start()
    time.sleep(0.1)
    assert events == []  # sync is waiting for the handler running on the other thread
    release.set()
    caller.join(5)
    waiter.join(5)
    assert events == ["handler", "synced"]
