"""EventFileWriter: naming, version event, flushing, exit paths, I/O errors, crash safety."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from tensorboard.backend.event_processing.event_file_loader import (
    LegacyEventFileLoader,
    RawEventFileLoader,
)
from tensorboard.compat.proto import event_pb2, summary_pb2

from flowjob.summary import EventFileWriter, SummaryWriter
from tests.timeouts import scaled

REPO = Path(__file__).resolve().parents[2]


def scalar_event(step: int, value: float, tag: str = "x") -> event_pb2.Event:
    return event_pb2.Event(
        wall_time=time.time(),
        step=step,
        summary=summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, simple_value=value)]),
    )


def load(path) -> list[event_pb2.Event]:
    return list(LegacyEventFileLoader(str(path)).Load())


def run_py(code: str, timeout: float = 60, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(timeout),
        **kw,
    )


def test_file_name_and_version_event_first(tmp_path):
    w = EventFileWriter(tmp_path / "run", filename_suffix=".v2")
    try:
        name = os.path.basename(w.path)
        m = re.fullmatch(r"events\.out\.tfevents\.(\d{10})\.(.+)\.(\d+)\.(\d+)\.v2", name)
        assert m, name
        assert abs(int(m.group(1)) - time.time()) < 60
        assert m.group(2) == socket.gethostname()
        assert int(m.group(3)) == os.getpid()
        # the version event is on disk before anything is logged or flushed
        events = load(w.path)
        assert [e.file_version for e in events] == ["brain.Event:2"]
    finally:
        w.close()


def test_many_writers_in_one_second_never_collide(tmp_path):
    writers = [EventFileWriter(tmp_path) for _ in range(20)]
    for i, w in enumerate(writers):
        w.add_event(scalar_event(i, float(i)))
    for w in writers:
        w.close()
    files = sorted(os.listdir(tmp_path))
    assert len(files) == 20
    steps = sorted(e.step for f in files for e in load(tmp_path / f) if e.HasField("summary"))
    assert steps == list(range(20))


def test_events_round_trip_in_order_through_a_small_queue(tmp_path):
    w = EventFileWriter(tmp_path, max_queue=4)
    for i in range(500):
        w.add_event(scalar_event(i, i * 0.5))
    w.close()
    events = load(w.path)
    assert events[0].file_version == "brain.Event:2"
    got = [(e.step, e.summary.value[0].simple_value) for e in events[1:]]
    assert got == [(i, i * 0.5) for i in range(500)]


def test_flush_makes_events_visible_while_open(tmp_path):
    w = EventFileWriter(tmp_path, flush_secs=3600)
    w.add_event(scalar_event(7, 1.0))
    w.flush()
    assert [e.step for e in load(w.path)[1:]] == [7]
    w.close()


def test_periodic_flush_without_calls(tmp_path):
    w = EventFileWriter(tmp_path, flush_secs=0.2)
    w.add_event(scalar_event(3, 1.0))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and len(load(w.path)) < 2:
        time.sleep(0.05)
    assert [e.step for e in load(w.path)[1:]] == [3]
    w.close()


def test_deferred_items_are_written_in_call_order(tmp_path):
    w = EventFileWriter(tmp_path)
    w.add_event(scalar_event(0, 0.0))
    w.add_deferred(lambda: scalar_event(1, 1.0).SerializeToString())
    w.add_deferred(lambda: None)  # nothing to write
    w.add_event(scalar_event(2, 2.0))
    w.close()
    assert [e.step for e in load(w.path)[1:]] == [0, 1, 2]


def test_close_is_idempotent_and_add_after_close_fails(tmp_path):
    w = EventFileWriter(tmp_path)
    w.close()
    w.close()
    w.flush()  # no-op once closed
    with pytest.raises(ValueError, match="closed"):
        w.add_event(scalar_event(0, 0.0))


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"flush_secs": 0}, "flush_secs"),
        ({"flush_secs": "2"}, "flush_secs"),
        ({"max_queue": 0}, "max_queue"),
        ({"filename_suffix": "a/b"}, "filename_suffix"),
    ],
)
def test_bad_arguments(tmp_path, kw, match):
    with pytest.raises(ValueError, match=match):
        EventFileWriter(tmp_path, **kw)


def test_caller_is_not_blocked_by_a_slow_disk(tmp_path):
    w = EventFileWriter(tmp_path, max_queue=100)
    gate = threading.Event()
    w.add_deferred(lambda: (gate.wait(10), None)[1])  # the writer thread is stuck here
    t0 = time.perf_counter()
    for i in range(50):
        w.add_event(scalar_event(i, 0.0))
    assert time.perf_counter() - t0 < 1.0
    assert w.pending >= 50
    gate.set()
    w.close()
    assert len(load(w.path)) == 51


def test_deferred_encoder_error_is_raised_from_flush(tmp_path):
    w = EventFileWriter(tmp_path)

    def boom():
        raise ValueError("bad image")

    w.add_deferred(boom)
    w.add_event(scalar_event(1, 1.0))
    with pytest.raises(RuntimeError, match="bad image"):
        w.flush()
    w.close()
    assert [e.step for e in load(w.path)[1:]] == [1]  # later events still written


def test_disk_full_is_raised_from_flush_and_earlier_records_stay_intact(tmp_path):
    # A real OS-level write error: RLIMIT_FSIZE makes writes past 4 KiB fail with EFBIG.
    code = f"""
        import resource, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        from flowjob.summary import EventFileWriter, EventWriteError
        from tensorboard.compat.proto import event_pb2, summary_pb2
        w = EventFileWriter({str(tmp_path)!r}, flush_secs=3600)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        for i in range(1000):
            w.add_event(event_pb2.Event(step=i, summary=summary_pb2.Summary(
                value=[summary_pb2.Summary.Value(tag="loss", simple_value=i)])))
        try:
            w.flush()
        except EventWriteError as e:
            print("FLUSH-RAISED", e.errno, e)
        else:
            print("NO-ERROR")
        w.close()  # reported once: close() does not raise it again
        print("CLOSED", w.dropped)
    """
    proc = run_py(code)
    assert proc.returncode == 0, proc.stderr
    assert "FLUSH-RAISED 27" in proc.stdout, proc.stdout + proc.stderr  # errno 27 = EFBIG
    assert "records written before the failure are intact" in proc.stdout
    dropped = int(proc.stdout.split("CLOSED")[1])
    (path,) = tmp_path.iterdir()
    assert path.stat().st_size <= 4096
    steps = [e.step for e in load(path)[1:]]
    assert steps == list(range(len(steps))) and len(steps) > 10
    assert len(steps) + dropped <= 1000


def test_atexit_flushes_an_unclosed_writer(tmp_path):
    proc = run_py(f"""
        from flowjob.summary import SummaryWriter
        w = SummaryWriter({str(tmp_path)!r}, flush_secs=3600)
        for i in range(2000):
            w.scalar("loss", i, i)
    """)
    assert proc.returncode == 0, proc.stderr
    (path,) = tmp_path.iterdir()
    assert [e.step for e in load(path)[1:]] == list(range(2000))


def _start_logging_child(tmp_path, prelude: str = "", flush_secs: float = 3600):
    code = f"""
        import sys, time
        {prelude}
        from flowjob.summary import SummaryWriter
        w = SummaryWriter({str(tmp_path)!r}, flush_secs={flush_secs})
        step = 0
        print("READY", flush=True)
        while True:
            w.scalar("loss", step * 0.5, step)
            step += 1
            time.sleep(0.0005)
    """
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().strip() == "READY", proc.stderr.read()
    return proc


def test_sigterm_flushes_then_dies_by_sigterm(tmp_path):
    proc = _start_logging_child(tmp_path)
    time.sleep(1.0)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=scaled(30)) == -signal.SIGTERM
    (path,) = tmp_path.iterdir()
    steps = [e.step for e in load(path)[1:]]
    assert len(steps) > 50 and steps == list(range(len(steps)))


def test_sigterm_chains_the_previous_python_handler(tmp_path):
    prelude = """
        import signal
        def mine(signum, frame):
            print("PREVIOUS-HANDLER-RAN", flush=True)
            sys.exit(3)
        signal.signal(signal.SIGTERM, mine)
    """
    proc = _start_logging_child(tmp_path, textwrap.indent(textwrap.dedent(prelude), " " * 8))
    time.sleep(1.0)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=scaled(30)) == 3
    assert "PREVIOUS-HANDLER-RAN" in proc.stdout.read()
    (path,) = tmp_path.iterdir()
    steps = [e.step for e in load(path)[1:]]
    assert len(steps) > 50 and steps == list(range(len(steps)))


def test_sigkill_loses_at_most_one_flush_interval(tmp_path):
    flush_secs = 0.5
    proc = _start_logging_child(tmp_path, flush_secs=flush_secs)
    time.sleep(2.5)
    t_kill = time.time()
    proc.kill()
    proc.wait(timeout=scaled(30))
    (path,) = tmp_path.iterdir()
    events = load(path)[1:]  # the reader ignores a torn last record
    steps = [e.step for e in events]
    assert steps == list(range(len(steps))), "records are missing in the middle"
    assert [e.summary.value[0].simple_value for e in events] == [s * 0.5 for s in steps]
    # Steps were logged continuously, so everything logged before the last record on disk is
    # there; the last one on disk must be younger than one flush interval (+ scheduling slack).
    lag = t_kill - events[-1].wall_time
    print(f"last record on disk was logged {lag:.3f} s before the kill")
    assert lag <= flush_secs + 0.75, lag
    assert len(list(RawEventFileLoader(str(path)).Load())) == len(events) + 1


def test_summary_writer_shares_the_event_file_contract(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.scalar("a", 1.0, 1)
    events = load(w.path)
    assert events[0].file_version == "brain.Event:2"
    assert events[1].summary.value[0].tag == "a"
