"""Errors never cost a checkpoint and never poison the session (issue 15, items 2, 3, 5, 6).

* A pending handler, callback or summary error does not stop ``checkpoint.save`` (or
  ``get_all_variables``): the checkpoint is written, and the error is still raised, once, from
  the next synchronisation point.
* A job whose body fails to trace is skipped (with one warning naming it and its error) by
  everything that needs all variables; the other jobs' state is saved.
* A job handle that no longer belongs to the session (another job took its name, or
  ``clear_default_session()`` ran) raises a clear error instead of running.
* Callback errors name the user's function; a blocking call inside a callback raises
  ``CallbackError``; a callback that raises at interpreter exit makes the exit status 1.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from reliability_helpers import child_env

import flowjob as flow
import flowjob.typing as tp
from flowjob.errors import CallbackError, JobDefinitionError
from tests.timeouts import scaled

pytestmark = pytest.mark.timeout(120)


def _train_job(name: str = "Fit", lr: float = 0.1):
    def fit(x: tp.Numpy.Placeholder((4, 3)), y: tp.Numpy.Placeholder((4, 1))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(3, 1), initializer=flow.zeros_initializer())
        loss = flow.math.reduce_mean(flow.math.square(flow.matmul(x, w) - y))
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [lr]), momentum=0
        ).minimize(loss)
        return loss

    fit.__name__ = fit.__qualname__ = name
    return flow.global_function(type="train")(fit)


_X = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
_Y = np.ones((4, 1), np.float32)


def _saved_w(path) -> np.ndarray:
    return flow.checkpoint.get(path)["w"].numpy()


def _live_w() -> np.ndarray:
    return flow.get_all_variables()["w"].numpy()


# --- item 2: a pending error never takes a save's place -------------------------------------
def _pending_handler_error(kind: str, tmp_path):
    """Makes one call that leaves an error of ``kind`` pending; returns the expected text."""
    if kind == "watch handler":

        def broken_handler(v):
            raise ZeroDivisionError("handler bug")

        @flow.global_function()
        def Watched(x: tp.Numpy.Placeholder((2,))) -> None:
            flow.watch(x, broken_handler)

        Watched(np.zeros(2, np.float32))
        return "broken_handler"
    if kind == "callback":

        @flow.global_function()
        def WithCallback(x: tp.Numpy.Placeholder((2,))) -> tp.Callback[tp.Numpy]:
            return x

        def broken_callback(v):
            raise ZeroDivisionError("callback bug")

        WithCallback(np.zeros(2, np.float32))(broken_callback)
        return "broken_callback"
    # a summary op whose log directory cannot be created (a file is in the way)
    blocker = tmp_path / "blocker"
    blocker.write_text("not a directory")

    @flow.global_function()
    def Logging(x: tp.Numpy.Placeholder((1,))) -> None:
        flow.summary.create_summary_writer(str(blocker / "logs"))

    Logging(np.zeros(1, np.float32))
    return "create_summary_writer"


@pytest.mark.parametrize("kind", ["watch handler", "callback", "summary op"])
def test_checkpoint_save_writes_while_an_error_is_pending(fresh_session, tmp_path, kind):
    fit = _train_job()
    fit(_X, _Y)
    expected = _live_w()
    names = _pending_handler_error(kind, tmp_path)
    flow.checkpoint.save(tmp_path / "new_api")  # neither raises ...
    flow.train.CheckPoint().save(str(tmp_path / "legacy_api"))
    manager = flow.train.SimpleCheckPointManager(tmp_path / "managed")
    managed = manager.save()
    for path in (tmp_path / "new_api", tmp_path / "legacy_api", managed):  # ... and all wrote
        assert os.path.isfile(os.path.join(path, "snapshot_done"))
        np.testing.assert_array_equal(_saved_w(path), expected)
    flow.load_variables({"w": np.full((3, 1), 7, np.float32)})  # loading does not raise either
    np.testing.assert_array_equal(_live_w(), np.full((3, 1), 7, np.float32))
    with pytest.raises(CallbackError, match=names):  # still reported, once
        flow.sync_default_session()
    flow.sync_default_session()


def test_a_pending_error_is_raised_by_the_next_blocking_call_after_a_save(fresh_session, tmp_path):
    fit = _train_job()
    names = _pending_handler_error("callback", tmp_path)
    flow.checkpoint.save(tmp_path / "ckpt")
    with pytest.raises(CallbackError, match=names):
        fit(_X, _Y)


# --- item 3: a failed trace does not poison the session -------------------------------------
def _broken_job():
    @flow.global_function()
    def Broken(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        return flow.matmul(x, x)  # (2, 3) @ (2, 3): fails at trace time

    return Broken


def test_a_job_that_failed_to_trace_does_not_block_saving(fresh_session, tmp_path):
    fit = _train_job()
    fit(_X, _Y)
    broken = _broken_job()
    with pytest.raises(flow.OpError):
        broken(np.zeros((2, 3), np.float32))
    with pytest.warns(UserWarning, match=r"job 'Broken'.*skipped.*OpError") as record:
        flow.checkpoint.save(tmp_path / "a")
    assert len([w for w in record if "Broken" in str(w.message)]) == 1
    expected = _live_w()
    with warnings.catch_warnings(record=True) as later:
        warnings.simplefilter("always")
        flow.train.CheckPoint().save(str(tmp_path / "b"))
        names = set(flow.get_all_variables())
        flow.load_variables(flow.checkpoint.get(tmp_path / "a"))
        flow.summary.Graph(str(tmp_path / "graph")).write_structure_graph()
    assert not [w for w in later if "Broken" in str(w.message)]  # warned once, not every time
    assert "w" in names and "System-Train-TrainStep-Fit" in names
    for path in (tmp_path / "a", tmp_path / "b"):
        np.testing.assert_array_equal(_saved_w(path), expected)
    with pytest.raises(flow.OpError):  # calling it still reports its own error
        broken(np.zeros((2, 3), np.float32))
    fit(_X, _Y)  # and the rest of the session keeps working


def test_a_job_never_called_that_cannot_trace_is_skipped_too(fresh_session, tmp_path):
    fit = _train_job()
    fit(_X, _Y)
    _broken_job()
    with pytest.warns(UserWarning, match="Broken"):
        values = flow.get_all_variables()
    assert "w" in values


# --- item 5: two train jobs with one name ---------------------------------------------------
def test_a_redefined_job_name_makes_the_old_handle_refuse_to_run(fresh_session):
    first = _train_job("Train", lr=0.1)
    first(_X, _Y)
    second = _train_job("Train", lr=0.5)  # OneFlow: the later definition takes the name
    second(_X, _Y)
    with pytest.raises(JobDefinitionError, match=r"'Train'.*redefined") as info:
        first(_X, _Y)
    assert "test_session_errors.py" in str(info.value)  # where the new definition is
    second(_X, _Y)
    steps = flow.get_all_variables()["System-Train-TrainStep-Train"].numpy()
    assert steps.tolist() == [3]  # 1 call of the first + 2 of the second; the refused one none


# --- item 6: smaller defects ----------------------------------------------------------------
def test_a_job_from_before_clear_default_session_refuses_to_run(fresh_session):
    @flow.global_function()
    def Old(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return x + 1

    np.testing.assert_array_equal(Old(np.zeros(2, np.float32)), [1, 1])
    flow.clear_default_session()
    with pytest.raises(JobDefinitionError, match=r"'Old'.*clear_default_session"):
        Old(np.zeros(2, np.float32))
    assert "Old" not in flow.get_all_variables()  # it did not join the new session


def test_callback_errors_name_the_users_function(fresh_session):
    @flow.global_function()
    def Job(x: tp.Numpy.Placeholder((2,))) -> tp.Callback[tp.Numpy]:
        return x

    def my_accuracy_callback(result):
        raise ValueError("bad")

    Job(np.zeros(2, np.float32))(my_accuracy_callback)
    with pytest.raises(CallbackError) as info:
        flow.sync_default_session()
    message = str(info.value)
    assert "my_accuracy_callback" in message and "lambda" not in message
    assert isinstance(info.value.__cause__, ValueError)


def test_a_blocking_call_inside_a_callback_raises_callback_error(fresh_session):
    @flow.global_function()
    def Blocking(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return x

    @flow.global_function()
    def Async(x: tp.Numpy.Placeholder((2,))) -> tp.Callback[tp.Numpy]:
        return x

    seen: list[BaseException] = []

    def callback(result):
        try:
            Blocking(result)
        except BaseException as exc:  # noqa: BLE001 - recorded for the assertion
            seen.append(exc)
        try:
            flow.sync_default_session()
        except BaseException as exc:  # noqa: BLE001
            seen.append(exc)

    Async(np.zeros(2, np.float32))(callback)
    flow.sync_default_session()
    assert len(seen) == 2
    for exc in seen:
        assert isinstance(exc, CallbackError) and "wait for itself" in str(exc), exc


def _run_script(tmp_path, body: str) -> subprocess.CompletedProcess:
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(body))
    return subprocess.run(
        [sys.executable, str(script)],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=scaled(120),
    )


def test_a_callback_raising_at_exit_gives_a_nonzero_exit_status(tmp_path):
    proc = _run_script(
        tmp_path,
        """
        import logging, sys
        import numpy as np
        import flowjob as flow
        import flowjob.typing as tp

        logging.basicConfig(filename=sys.argv[0] + ".log", level=logging.INFO)

        @flow.global_function()
        def Job(x: tp.Numpy.Placeholder((2,))) -> tp.Callback[tp.Numpy]:
            return x

        def late_failing_callback(result):
            raise RuntimeError("lost at exit")

        Job(np.zeros(2, np.float32))(late_failing_callback)
        logging.info("script body done")
        print("body done")
        """,
    )
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert "late_failing_callback" in proc.stderr and "lost at exit" in proc.stderr
    assert "body done" in proc.stdout  # output is not lost on the way out
    assert "script body done" in (tmp_path / "prog.py.log").read_text()  # logging flushed


def test_an_event_file_that_cannot_be_written_at_exit_gives_a_nonzero_exit_status(tmp_path):
    """A real file-size limit (EFBIG): the records are only written when the writer is closed
    at exit, and that write fails."""
    proc = _run_script(
        tmp_path,
        f"""
        import resource, signal
        import flowjob as flow

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (16384, 16384))
        w = flow.summary.SummaryWriter({str(tmp_path / "logs")!r}, flush_secs=600)
        for i in range(1000):  # ~45 kB: more than the limit, less than the write buffer
            w.scalar("x", float(i), i)
        print("body done")
        """,
    )
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert "EventWriteError" in proc.stderr or "File too large" in proc.stderr, proc.stderr
    assert "body done" in proc.stdout


def test_a_clean_exit_keeps_status_zero(tmp_path):
    proc = _run_script(
        tmp_path,
        """
        import numpy as np
        import flowjob as flow
        import flowjob.typing as tp

        @flow.global_function()
        def Job(x: tp.Numpy.Placeholder((2,))) -> tp.Callback[tp.Numpy]:
            return x

        Job(np.zeros(2, np.float32))(lambda r: None)
        """,
    )
    assert proc.returncode == 0, proc.stderr


def test_a_summary_logdir_that_is_a_file_is_a_clear_error(fresh_session, tmp_path):
    path = tmp_path / "run1"
    path.write_text("I am a file")
    with pytest.raises(NotADirectoryError, match=r"run1.*must be a directory"):
        flow.summary.SummaryWriter(path)
    with pytest.raises(flow.OpError, match=r"run1.*must be a directory"):

        @flow.global_function()
        def MakeWriter(x: tp.Numpy.Placeholder((1,))) -> None:
            flow.summary.create_summary_writer(str(path))

        MakeWriter(np.zeros(1, np.float32))
    assert path.read_text() == "I am a file"
