"""Load: 10,000 calls with watches and callbacks, 4 threads at once, callbacks that call jobs."""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest
from reliability_helpers import run_child

import flowjob as flow
import flowjob.typing as tp
from tests.timeouts import scaled

pytestmark = pytest.mark.timeout(120)  # a deadlock fails the test instead of hanging CI


@pytest.mark.slow
def test_memory_stays_flat_over_10000_calls_with_watches_and_callbacks(tmp_path):
    run_child("rss_under_load", 10_000, tmp_path / "rss.json", timeout=300)
    result = json.loads((tmp_path / "rss.json").read_text())
    assert result["in_order"] and result["delivered"] == 10_000
    assert result["watched"] == 10_000
    rss = dict(result["samples"])  # calls -> VmRSS in KiB, after a sync
    # Each call moves two 4 KiB arrays through the runtime, so keeping anything per call would
    # add >= 32 MiB between call 2,000 and call 10,000; allocator noise is ~1 MiB.
    assert rss[10_000] - rss[2_000] < 8 * 1024, result["samples"]


@pytest.fixture
def jobs(fresh_session):
    events: list[tuple] = []

    @flow.global_function()
    def Square(
        x: tp.Numpy.Placeholder((4,)), tag: tp.Numpy.Placeholder((1,), dtype=flow.int64)
    ) -> tp.Callback[tp.Numpy]:
        flow.watch(tag, lambda t: events.append(("watch", int(t[0]))))
        return flow.math.square(x) + flow.cast(tag, flow.float32) * 0

    @flow.global_function()
    def Blocking(x: tp.Numpy.Placeholder((4,))) -> tp.Numpy:
        return x + 1

    @flow.global_function()
    def Unannotated(x: tp.Numpy.Placeholder((4,))):
        return x * 3

    return Square, Blocking, Unannotated, events


def test_four_threads_with_watches_and_callbacks(jobs):
    square, blocking, _, events = jobs
    per_thread: dict[int, list[int]] = {k: [] for k in range(4)}
    errors: list[BaseException] = []
    n = 250

    def worker(k: int) -> None:
        try:
            for i in range(n):
                tag = k * 10_000 + i
                x = np.full(4, tag % 97, np.float32)

                def done(r, tag=tag, want=float((tag % 97) ** 2)):
                    assert r.tolist() == [want] * 4, (tag, r)
                    events.append(("callback", tag))
                    per_thread[k].append(tag)

                square(x, np.array([tag], np.int64))(done)
                if i % 25 == 0:  # blocking calls mixed in from every thread
                    np.testing.assert_array_equal(blocking(x), x + 1)
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(scaled(60))
    assert not any(t.is_alive() for t in threads), "a job call hung"
    flow.sync_default_session()
    assert not errors, errors
    for k, tags in per_thread.items():  # every callback, in each thread's call order
        assert tags == [k * 10_000 + i for i in range(n)]
    # Each call's watch handler ran before its callback, and calls completed one at a time.
    order = [(kind, tag) for kind, tag in events]
    assert len(order) == 2 * 4 * n
    for j in range(0, len(order), 2):
        assert order[j][0] == "watch" and order[j + 1] == ("callback", order[j][1])


def test_a_call_from_another_thread_waits_behind_a_callback_not_yet_registered(jobs):
    """Thread A's call is held until A registers its callback; a call thread B launches
    meanwhile is delivered after it, so A's callback runs right after A's handlers, before
    B's call. (Before the fix, B's call let A's go undelivered-to: A's callback ran last.
    That was the rare failure of the four-thread test under load.)"""
    square, _, _, events = jobs
    x = np.ones(4, np.float32)
    register = square(x, np.array([1], np.int64))  # this thread's call, callback not yet given

    def other():
        square(x, np.array([2], np.int64))(lambda r: events.append(("callback", 2)))

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    time.sleep(0.2)  # time for a completion thread to run anything it was given
    register(lambda r: events.append(("callback", 1)))
    flow.sync_default_session()
    assert events == [("watch", 1), ("callback", 1), ("watch", 2), ("callback", 2)]


def test_callbacks_may_launch_jobs_without_blocking(jobs):
    square, _, unannotated, _ = jobs
    got: list[tuple] = []

    def level(depth: int):
        def callback(r):
            got.append((depth, float(r[0])))
            if depth < 3:  # a non-blocking call from inside a callback, three levels deep
                square(np.full(4, depth + 2, np.float32), np.array([depth], np.int64))(
                    level(depth + 1)
                )
            else:
                unannotated(np.ones(4, np.float32)).async_get(
                    lambda r: got.append(("unannotated", float(r.numpy()[0])))
                )

        return callback

    for _ in range(5):
        square(np.full(4, 1, np.float32), np.array([0], np.int64))(level(1))
    flow.sync_default_session()  # waits for the calls launched from callbacks too
    want = [(1, 1.0), (2, 9.0), (3, 16.0), ("unannotated", 3.0)] * 5
    assert sorted(map(str, got)) == sorted(map(str, want))
    # each level's callback ran after the one that launched it
    assert got.index((1, 1.0)) < got.index((2, 9.0)) < got.index((3, 16.0))


def test_callbacks_launching_jobs_with_concurrency_width_one(fresh_session):
    config = flow.function_config()
    config.concurrency_width(1)  # the completion thread never waits for a slot

    @flow.global_function(function_config=config)
    def Narrow(x: tp.Numpy.Placeholder((2,))) -> tp.Callback[tp.Numpy]:
        return x * 2

    got = []
    for i in range(20):
        Narrow(np.full(2, i, np.float32))(lambda r: Narrow(r)(lambda rr: got.append(float(rr[0]))))
    flow.sync_default_session()
    assert sorted(got) == [4.0 * i for i in range(20)]


def _blocking_actions(jobs, tmp_path):
    _, blocking, unannotated, _ = jobs
    x = np.ones(4, np.float32)
    return {
        "annotated job": lambda: blocking(x),
        "get()": lambda: unannotated(x).get(),
        "sync_default_session": flow.sync_default_session,
        "checkpoint.save": lambda: flow.checkpoint.save(tmp_path / "ckpt"),
        "get_all_variables": flow.get_all_variables,
    }


@pytest.mark.parametrize(
    "action",
    ["annotated job", "get()", "sync_default_session", "checkpoint.save", "get_all_variables"],
)
@pytest.mark.parametrize("where", ["callback", "watch"])
def test_blocking_inside_a_callback_is_a_clear_error(jobs, tmp_path, action, where):
    square, blocking, _, _ = jobs
    do = _blocking_actions(jobs, tmp_path)[action]
    x = np.ones(4, np.float32)
    if where == "callback":
        square(x, np.array([1], np.int64))(lambda r: do())
    else:

        @flow.global_function()
        def Watched(v: tp.Numpy.Placeholder((4,))) -> None:
            flow.watch(v, lambda _: do())

        Watched(x)
    with pytest.raises(flow.CallbackError, match="would wait for itself") as info:
        flow.sync_default_session()
    assert isinstance(info.value.__cause__, flow.FlowJobError)
    assert not (tmp_path / "ckpt").exists()
    np.testing.assert_array_equal(blocking(x), x + 1)  # the session is still usable
    flow.sync_default_session()  # and the error was raised once


@pytest.mark.timeout(60)
@pytest.mark.parametrize("annotation", ["unannotated", "callback"])
def test_unclaimed_results_do_not_block_the_next_call(fresh_session, annotation):
    config = flow.function_config()
    config.concurrency_width(1)

    def body(x: tp.Numpy.Placeholder((2,))):
        return x * 2

    if annotation == "callback":
        body.__annotations__["return"] = tp.Callback[tp.Numpy]
    job = flow.global_function(function_config=config)(body)
    job(np.ones(2, np.float32))  # result ignored (OneFlow scripts often do this)
    second = threading.Thread(target=job, args=(np.ones(2, np.float32),), daemon=True)
    second.start()
    second.join(3)
    hung = second.is_alive()
    flow.sync_default_session()  # releases the held call, so a hung second call finishes
    second.join(10)
    assert not hung, "the second call waited for the slot of the unclaimed first call"
