"""A full disk while logging is never silent, and logging recovers (issue 15, item 1).

After the first failed write, the next logging call of a host ``SummaryWriter`` raises
``EventWriteError`` naming the file (in-job ``flow.summary.*`` ops: the next synchronisation
point raises ``CallbackError`` caused by it). The writer keeps the file a clean sequence of
complete records and writes again once space returns, so what is logged afterwards is read
by TensorBoard.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys

import numpy as np
import pytest
from reliability_helpers import tb_scalars

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.cli import doctor
from flowjob._src.summary import EventWriteError, SummaryWriter, _event_writer, _ops
from flowjob.errors import CallbackError
from tests.timeouts import scaled

pytestmark = pytest.mark.timeout(120)

RESUMED = 10**6  # steps logged after space returned start here


class _Disk:
    """Event files whose writes stop with ENOSPC once ``free`` bytes are used (writing what
    still fits first, as a real full disk does); set ``free`` again to give space back."""

    def __init__(self, free: int):
        self.free = free
        self.failures = 0

    def install(self, monkeypatch) -> None:
        real = _event_writer._create_file
        monkeypatch.setattr(
            _event_writer,
            "_create_file",
            lambda d, s: (lambda f, p: (_Limited(f, self), p))(*real(d, s)),
        )


class _Limited:
    def __init__(self, f, disk: _Disk):
        self._f, self._disk = f, disk

    def write(self, data) -> int:
        data = bytes(data)
        n = min(len(data), self._disk.free)
        written = self._f.write(data[:n]) if n else 0
        self._disk.free -= n
        if n < len(data):
            self._disk.failures += 1
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return written

    def __getattr__(self, name):
        return getattr(self._f, name)


def _check_file(path, before_failure: int) -> list[int]:
    """The file is whole (TensorBoard reads every record, doctor sees no torn tail) and holds
    steps 0..k (k >= ``before_failure``), maybe some later ones, then every resumed step."""
    report = doctor.Report()
    doctor.check_event_file(str(path), report)
    assert report.damaged == 0 and report.warnings == 0, report.lines
    (points,) = tb_scalars(path).values()
    steps = [s for s, _ in points]
    assert all(v == float(s) for s, v in points)
    assert steps == sorted(steps) and len(set(steps)) == len(steps)
    head = [s for s in steps if s < RESUMED]
    assert head[: before_failure + 1] == list(range(before_failure + 1))
    assert [s for s in steps if s >= RESUMED] == list(range(RESUMED, RESUMED + 500))
    return steps


def _log_until_raised(w: SummaryWriter) -> tuple[EventWriteError, int]:
    """Logs scalar i at step i (no flush) until a logging call raises; (error, i)."""
    for i in range(500_000):
        try:
            w.scalar("x", float(i), i)
        except EventWriteError as exc:
            return exc, i
    raise AssertionError("no logging call raised after the disk filled up")


def _resume(w: SummaryWriter) -> None:
    for i in range(RESUMED, RESUMED + 500):
        w.scalar("x", float(i), i)
    try:
        w.flush()  # may report records dropped while the disk was still full ...
    except EventWriteError as exc:
        assert "dropped" in str(exc) and w.path in str(exc)
    w.flush()  # ... but once space is back, nothing more is lost


def test_the_next_logging_call_raises_and_writing_resumes(tmp_path, monkeypatch):
    disk = _Disk(free=20_000)
    disk.install(monkeypatch)
    w = SummaryWriter(tmp_path, flush_secs=60)
    err, at = _log_until_raised(w)
    assert err.errno == errno.ENOSPC and w.path in str(err) and "dropped" in str(err)
    assert disk.failures >= 1
    for i in range(at + 1, at + 50):  # raised once, not at every later call
        w.scalar("x", float(i), i)
    disk.free = 10**9  # space returns
    _resume(w)
    w.close()
    _check_file(w.path, before_failure=100)


def test_histograms_raise_too(tmp_path, monkeypatch):
    disk = _Disk(free=5_000)
    disk.install(monkeypatch)
    w = SummaryWriter(tmp_path, flush_secs=60)
    with pytest.raises(EventWriteError, match="No space left"):
        for i in range(100_000):
            w.histogram("h", np.arange(100.0), i)
    with pytest.raises(EventWriteError, match="dropped"):  # the disk is still full
        w.close()


def test_in_job_summaries_raise_from_the_next_sync_and_resume(fresh_session, tmp_path, monkeypatch):
    disk = _Disk(free=20_000)
    disk.install(monkeypatch)
    logdir = str(tmp_path / "logs")

    @flow.global_function()
    def MakeWriter(x: tp.Numpy.Placeholder((1,))) -> None:
        flow.summary.create_summary_writer(logdir)

    @flow.global_function()
    def Log(
        value: tp.Numpy.Placeholder((1,)), step: tp.Numpy.Placeholder((1,), dtype=flow.int64)
    ) -> None:
        flow.summary.scalar(value, step, "x")

    def log(i: int) -> None:
        Log(np.array([i], np.float32), np.array([i], np.int64))

    MakeWriter(np.zeros(1, np.float32))
    raised = None
    for i in range(200_000):
        log(i)
        if i % 50 == 49:
            try:
                flow.sync_default_session()
            except CallbackError as exc:
                raised = exc
                break
    assert raised is not None, "no synchronisation point reported the full disk"
    cause = raised.__cause__
    assert isinstance(cause, EventWriteError) and cause.errno == errno.ENOSPC
    path = _ops.default_writer().path
    assert path in str(raised)  # the message names the file
    disk.free = 10**9
    for i in range(RESUMED, RESUMED + 500):
        log(i)
    flow.sync_default_session()
    writer = _ops.default_writer()
    _resume_flush(writer)
    _ops.close_default_writer()
    _check_file(path, before_failure=100)


def _resume_flush(w: SummaryWriter) -> None:
    try:
        w.flush()
    except EventWriteError as exc:
        assert "dropped" in str(exc)
    w.flush()


@pytest.fixture
def tiny_disk(tmp_path):
    """A real 1 MiB tmpfs (root only), unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    try:
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)],
            check=True,
            capture_output=True,
            timeout=scaled(30),
        )
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"cannot mount a tmpfs here ({exc})")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True, timeout=scaled(30))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="tmpfs is Linux")
def test_a_real_full_tmpfs_raises_and_recovers_when_space_is_freed(tiny_disk):
    filler = tiny_disk / "filler"
    with open(filler, "wb") as f:
        f.write(b"\0" * (700 * 1024))
    w = SummaryWriter(tiny_disk / "logs", flush_secs=60)
    err, _ = _log_until_raised(w)
    assert err.errno == errno.ENOSPC and w.path in str(err)
    os.remove(filler)  # space returns
    _resume(w)
    w.close()
    _check_file(w.path, before_failure=100)
