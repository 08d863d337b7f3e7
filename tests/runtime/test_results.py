"""Job results (seed 003): sync/async, ordering, reuse errors, exceptions and threads."""

from __future__ import annotations

import threading
import typing

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.graph import apply_op
from tests.timeouts import scaled


def double(x):
    return apply_op("double", lambda a: a * 2, [x], elementwise=True)


pytestmark = pytest.mark.usefixtures("fresh_session")


def _jobs():
    @flow.global_function()
    def Plain(x=flow.FixedTensorDef((3,))):
        return double(x)

    @flow.global_function()
    def Async(x: tp.Numpy.Placeholder((3,))) -> tp.Callback[tp.Numpy]:
        return double(x)

    return Plain, Async


def test_async_get_and_callbacks_keep_call_order_over_1000_calls():
    plain, typed = _jobs()
    seen = []
    for i in range(1000):
        x = np.full(3, i, np.float32)
        if i % 2:
            plain(x).async_get(lambda r, i=i: seen.append((i, float(r.numpy()[0]))))
        else:
            typed(x)(lambda r, i=i: seen.append((i, float(r[0]))))
    flow.sync_default_session()
    assert [i for i, _ in seen] == list(range(1000))
    assert all(v == 2 * i for i, v in seen)


def test_result_object_is_single_use():
    plain, _ = _jobs()
    result = plain(np.ones(3, np.float32))
    result.get()
    with pytest.raises(flow.FlowJobError, match=r"already taken with \.get\(\)"):
        result.get()
    with pytest.raises(flow.FlowJobError, match="already taken"):
        result.async_get(print)
    other = plain(np.ones(3, np.float32))
    other.async_get(lambda r: None)
    with pytest.raises(flow.FlowJobError, match=r"\.async_get\(\)"):
        other.get()


def test_local_result_forwards_numpy_api_and_deprecated_ndarray(capsys):
    plain, _ = _jobs()
    r = plain(np.array([1, 2, 3], np.float32)).get()
    assert r.mean() == pytest.approx(4.0)
    assert r.shape == (3,)
    assert list(r == np.array([2, 4, 6])) == [True, True, True]
    assert (r + 1)[0] == 3 and r[1:].tolist() == [4.0, 6.0]
    np.testing.assert_array_equal(r.numpy_list()[0], [2, 4, 6])
    with pytest.warns(FutureWarning):
        np.testing.assert_array_equal(r.ndarray(), [2, 4, 6])
    assert "ndarray is deprecated" in capsys.readouterr().err


def test_late_async_get_still_runs_on_completion_thread():
    plain, _ = _jobs()
    result = plain(np.ones(3, np.float32))
    flow.sync_default_session()
    threads = []
    result.async_get(lambda r: threads.append(threading.current_thread().name))
    flow.sync_default_session()
    assert threads == ["flowjob-completion"]


def test_callback_exception_is_reraised_once_and_nothing_is_lost():
    _, typed = _jobs()
    seen = []

    def boom(_):
        raise ValueError("bad callback")

    typed(np.ones(3, np.float32))(boom)
    for i in range(5):
        typed(np.full(3, i, np.float32))(lambda r: seen.append(r[0]))
    with pytest.raises(flow.CallbackError, match="bad callback") as info:
        flow.sync_default_session()
    assert isinstance(info.value.__cause__, ValueError)
    assert seen == [0, 2, 4, 6, 8]
    flow.sync_default_session()  # raised once only


def test_blocking_call_raises_pending_callback_error():
    _, typed = _jobs()

    @flow.global_function()
    def Block(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        return double(x)

    typed(np.ones(3, np.float32))(lambda r: 1 / 0)
    with pytest.raises(flow.CallbackError) as info:
        Block(np.ones(3, np.float32))
    assert isinstance(info.value.__cause__, ZeroDivisionError)
    np.testing.assert_array_equal(Block(np.ones(3, np.float32)), [2, 2, 2])


def test_jobs_called_from_threads():
    @flow.global_function()
    def Work(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        return double(x)

    errors, results = [], {}

    def worker(k):
        try:
            for i in range(50):
                out = Work(np.full(3, k * 1000 + i, np.float32))
                assert out[0] == 2 * (k * 1000 + i)
            results[k] = True
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 4


def test_callback_may_launch_jobs_but_not_block():
    _, typed = _jobs()

    @flow.global_function()
    def Block(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        return double(x)

    inner = []
    typed(np.ones(3, np.float32))(lambda r: typed(r)(lambda rr: inner.append(rr.tolist())))
    typed(np.ones(3, np.float32))(lambda r: Block(r))
    with pytest.raises(flow.CallbackError, match="would wait for itself"):
        flow.sync_default_session()
    flow.sync_default_session()
    assert inner == [[4.0, 4.0, 4.0]]


def test_concurrency_width_bounds_in_flight_calls():
    config = flow.function_config()
    config.concurrency_width(2)
    release = threading.Event()

    @flow.global_function(function_config=config)
    def Slow(x: tp.Numpy.Placeholder((3,))) -> tp.Callback[tp.Numpy]:
        return double(x)

    Slow(np.ones(3, np.float32))(lambda r: release.wait(5))
    Slow(np.ones(3, np.float32))(lambda r: None)
    launched = threading.Event()

    def third():
        Slow(np.ones(3, np.float32))(lambda r: None)
        launched.set()

    t = threading.Thread(target=third)
    t.start()
    assert not launched.wait(0.5)  # back-pressure: two calls in flight already
    release.set()
    assert launched.wait(5)
    t.join()
    flow.sync_default_session()


def test_dict_results_async_like_seed_003():
    @flow.global_function()
    def Eval(
        images=flow.FixedTensorDef((2, 3)), labels=flow.FixedTensorDef((2,), dtype=flow.int32)
    ):
        return {"labels": labels, "logits": double(images)}

    got = []

    def acc(result):
        got.append((result["labels"].numpy().tolist(), result["logits"].ndarray().sum()))

    Eval(np.ones((2, 3), np.float32), np.array([1, 2], np.int32)).async_get(acc)
    flow.sync_default_session()
    assert got == [([1, 2], 12.0)]


def test_tuple_callback_annotation_like_seed_003():
    @flow.global_function()
    def Eval(x: tp.Numpy.Placeholder((2,))) -> tp.Callback[typing.Tuple[tp.Numpy, tp.Numpy]]:
        return x, double(x)

    got = []
    Eval(np.array([1, 2], np.float32))(lambda pair: got.append(pair[1].tolist()))
    flow.sync_default_session()
    assert got == [[2.0, 4.0]]


def test_none_job_returns_immediately_and_reduce_via_jnp():
    @flow.global_function()
    def Nothing(x: tp.Numpy.Placeholder((2,))) -> None:
        apply_op("sum", lambda a: jnp.sum(a), [x])

    assert Nothing(np.ones(2, np.float32)) is None
    flow.sync_default_session()


def test_pending_callbacks_and_handlers_run_at_interpreter_exit(tmp_path):
    import subprocess
    import sys
    import textwrap

    script = tmp_path / "exit_job.py"
    script.write_text(
        textwrap.dedent("""
        import numpy as np
        import flowjob as flow
        import flowjob.typing as tp

        def show(v: tp.Numpy):
            print("watch", int(v[0]), flush=True)

        @flow.global_function()
        def Job(x: tp.Numpy.Placeholder((2,))) -> tp.Callback[tp.Numpy]:
            flow.watch(x, show)
            return x

        for i in range(50):
            Job(np.full(2, i, np.float32))(lambda v: print("cb", int(v[0]), flush=True))
    """)
    )
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=scaled(120)
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split("\n")
    delivered = [line for line in lines if line.startswith(("watch", "cb"))]
    expected = [f"{kind} {i}" for i in range(50) for kind in ("watch", "cb")]
    assert delivered == expected


def _slow_then_read(x):
    # A heavy matmul chain first, then x is read: the input is read late in the program, so a
    # buffer shared with the caller (or recycled too early) would show the caller's later writes.
    def f(a):
        m = jnp.ones((400, 400), jnp.float32) * jnp.float32(1e-3)
        for _ in range(6):
            m = m @ m
        return a * 2 + jnp.sum(m) * 0

    return apply_op("slow_then_read", f, [x])


def test_async_calls_own_their_inputs_while_in_flight_and_reuse_copies_safely():
    @flow.global_function()
    def Slow(x: tp.Numpy.Placeholder((256, 64))) -> tp.Callback[tp.Numpy]:
        return _slow_then_read(x)

    got: list = []
    # One caller buffer, rewritten for every call; 64-byte aligned, the case where XLA:CPU
    # would use the caller's memory in place if flowjob passed it through.
    raw = np.empty(256 * 64 * 4 + 64, np.uint8)
    start = -raw.ctypes.data % 64
    buf = raw[start : start + 256 * 64 * 4].view(np.float32).reshape(256, 64)
    for i in range(40):
        buf[...] = i
        Slow(buf)(lambda out, i=i: got.append((i, float(out.min()), float(out.max()))))
    buf[...] = -1
    flow.sync_default_session()
    assert got == [(i, 2.0 * i, 2.0 * i) for i in range(40)]


def test_blocking_call_passes_inputs_through_and_results_do_not_alias_them():
    @flow.global_function()
    def Echo(x: tp.Numpy.Placeholder((4, 4))) -> tp.Numpy:
        return x  # an argument read back on the host: the call must copy it

    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    out = Echo(x)
    x[...] = -1
    np.testing.assert_array_equal(out, np.arange(16, dtype=np.float32).reshape(4, 4))


def test_jobs_returning_empty_structures_complete():
    @flow.global_function()
    def Empty(x: tp.Numpy.Placeholder((2,))):
        double(x)
        return ()

    got: list = []
    worker = threading.Thread(
        target=lambda: got.append(Empty(np.ones(2, np.float32)).get()), daemon=True
    )
    worker.start()
    worker.join(timeout=scaled(60))
    assert got == [()]


def test_sync_waits_for_the_programs_of_calls_that_fetch_nothing():
    """A train job that returns nothing and watches nothing has no output to wait for: its
    calls complete at once while XLA still runs their queued steps. sync_default_session
    returns only once they ran (what timing a loop, or a save after it, relies on)."""
    from flowjob._src.runtime._session import default_session

    @flow.global_function(type="train")
    def Step(x: tp.Numpy.Placeholder((384, 384))) -> None:
        w = flow.get_variable("w", (384, 384), initializer=flow.ones_initializer())
        y = x
        for _ in range(4):
            y = flow.math.tanh(flow.matmul(y, w))
        loss = flow.math.reduce_mean(y)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [1e-3])).minimize(loss)

    x = np.full((384, 384), 0.01, np.float32)
    for _ in range(60):
        assert Step(x) is None
    flow.sync_default_session()
    values = default_session().state.variables.values.values()
    pending = [v for v in values if isinstance(v, jax.Array) and not v.is_ready()]
    assert not pending, f"{len(pending)} variable(s) still being computed after the sync"
