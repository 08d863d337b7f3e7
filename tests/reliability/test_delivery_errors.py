"""Errors of user code on the host stay small and truthful (issue 24, items 2 and 6).

* Handler errors keep a bounded summary: the first error with its traceback (as text) and a
  count of the rest; no watched array stays alive because an error is pending.
* A callback whose ``__repr__`` raises still reports its own error.
* A result callback with the wrong number of parameters fails when it is registered.
* With slow handlers queued, the first Ctrl-C says what flowjob waits for; a second one
  abandons the pending deliveries.
"""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import textwrap
import time
import weakref

import numpy as np
import pytest
from reliability_helpers import child_env

import flowjob as flow
import flowjob.typing as tp
from flowjob.errors import CallbackError, JobDefinitionError
from tests.timeouts import scaled

pytestmark = pytest.mark.timeout(120)


def test_handler_errors_keep_the_first_with_its_traceback_a_count_and_no_arrays(fresh_session):
    seen: list[weakref.ref] = []

    def failing_handler(value: tp.Numpy):
        seen.append(weakref.ref(value))
        raise ValueError(f"bad batch {len(seen)}")

    @flow.global_function()
    def Watched(x: tp.Numpy.Placeholder((1000,))) -> None:
        flow.watch(x * 2, failing_handler)

    for i in range(20):
        Watched(np.full(1000, i, np.float32))
    with pytest.raises(CallbackError) as info:
        flow.sync_default_session()
    message = str(info.value)
    assert "failing_handler" in message and "bad batch 1" in message
    assert "(and 19 more)" in message
    first = info.value.__cause__
    assert isinstance(first, ValueError) and str(first) == "bad batch 1"
    # the traceback survives as text: it names the handler's raising line
    notes = "".join(getattr(first, "__notes__", []))
    assert "failing_handler" in notes and 'raise ValueError(f"bad batch' in notes
    del info, first
    gc.collect()
    assert len(seen) == 20
    alive = [i for i, ref in enumerate(seen) if ref() is not None]
    assert alive == [], f"watched arrays of calls {alive} are still referenced"
    flow.sync_default_session()  # raised once


class _Opaque:
    """A callable whose repr fails: its own error must be the one reported."""

    def __call__(self, result):
        raise KeyError("the real problem")

    def __repr__(self):
        raise RuntimeError("repr is broken too")


def test_a_callback_whose_repr_raises_keeps_its_real_error(fresh_session):
    @flow.global_function()
    def Job(x: tp.Numpy.Placeholder((2,))) -> tp.Callback[tp.Numpy]:
        return x

    Job(np.zeros(2, np.float32))(_Opaque())
    with pytest.raises(CallbackError) as info:
        flow.sync_default_session()
    assert isinstance(info.value.__cause__, KeyError)
    assert "the real problem" in str(info.value)
    assert "_Opaque" in str(info.value)


def test_a_watch_handler_whose_repr_raises_keeps_its_real_error(fresh_session):
    class Handler(_Opaque):
        def __call__(self, value):
            raise KeyError("the real problem")

    @flow.global_function()
    def Job(x: tp.Numpy.Placeholder((2,))) -> None:
        flow.watch(x, Handler())

    Job(np.zeros(2, np.float32))
    with pytest.raises(CallbackError) as info:
        flow.sync_default_session()
    assert isinstance(info.value.__cause__, KeyError)


@pytest.mark.parametrize("how", ["callback", "async_get"])
def test_a_result_callback_with_the_wrong_parameters_fails_when_registered(fresh_session, how):
    if how == "callback":

        @flow.global_function()
        def Scores(x: tp.Numpy.Placeholder((2,))) -> tp.Callback[tp.Numpy]:
            return x
    else:

        @flow.global_function()
        def Scores(x: tp.Numpy.Placeholder((2,))):
            return x

    calls = []

    def two_params(result, extra):
        calls.append(result)

    pending = Scores(np.zeros(2, np.float32))
    register = pending if how == "callback" else pending.async_get
    with pytest.raises(JobDefinitionError) as info:
        register(two_params)
    message = str(info.value)
    assert "'Scores'" in message and "two_params" in message
    assert "one positional parameter" in message
    flow.sync_default_session()  # nothing left pending: the bad callback never ran
    assert calls == []


_SLOW = """
    import sys, time
    import numpy as np
    import flowjob as flow
    import flowjob.typing as tp

    done = []

    def slow(value: tp.Numpy):
        time.sleep(0.2)
        done.append(1)
        print("delivered", len(done), flush=True)

    @flow.global_function()
    def Job(x: tp.Numpy.Placeholder((2,))) -> None:
        flow.watch(x, slow)

    for i in range(100):
        Job(np.zeros(2, np.float32))
    print("launched", flush=True)
    while True:
        time.sleep(0.05)
"""


def _wait_for(stream, needle: str, deadline: float) -> list[str]:
    lines = []
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        lines.append(line)
        if needle in line:
            return lines
    raise AssertionError(f"{needle!r} never appeared: {lines}")


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")
def test_ctrl_c_says_what_it_waits_for_and_a_second_one_abandons(tmp_path):
    script = tmp_path / "slow.py"
    script.write_text(textwrap.dedent(_SLOW))
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        env=child_env(),
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 90
        _wait_for(proc.stdout, "launched", deadline)
        proc.send_signal(signal.SIGINT)  # the first Ctrl-C ends the script's loop ...
        waited = _wait_for(proc.stderr, "press Ctrl-C again", deadline)
        # ... and flowjob says what it still waits for before exiting
        notice = waited[-1]
        pending = int(notice.split("waiting for ")[1].split()[0])
        assert 0 < pending <= 100, notice
        proc.send_signal(signal.SIGINT)  # the second abandons them
        out, err = proc.communicate(timeout=scaled(60))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert "abandoned" in err, err
    delivered = [line for line in out.splitlines() if line.startswith("delivered")]
    assert len(delivered) < 100  # it did not wait for the rest
    assert proc.returncode != 0
