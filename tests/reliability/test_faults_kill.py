"""SIGKILL at random moments: while saving checkpoints, while logging, while training with
pending async callbacks. Nothing complete-looking is ever damaged, nothing older than one flush
interval is lost, and a fresh process restores the newest complete snapshot."""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path

import numpy as np
import pytest
from reliability_helpers import (
    event_files,
    run_child,
    run_doctor,
    start_child,
    tb_events,
    tb_scalars,
)

import flowjob as flow
import flowjob.checkpoint as ckpt
from flowjob.summary import read_records
from tests.timeouts import scaled

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")


def _lines(progress: Path) -> list[list[str]]:
    if not progress.exists():
        return []
    return [line.split() for line in progress.read_text().splitlines() if line.strip()]


def _kill_when(proc, progress: Path, ready, extra_s: float, timeout: float = 120) -> float:
    """Waits until ``ready(lines)``, then ``extra_s`` more, then SIGKILLs; returns the kill's
    wall time."""
    deadline = time.monotonic() + scaled(timeout)
    try:
        while not ready(_lines(progress)):
            if proc.poll() is not None:
                pytest.fail(f"child exited early ({proc.returncode}):\n{proc.stderr.read()}")
            assert time.monotonic() < deadline, "child never got ready"
            time.sleep(0.02)
        time.sleep(extra_s)
        killed_at = time.time()
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(30) == -signal.SIGKILL
        return killed_at
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream:
                stream.close()


def _doctor_finds_no_damage(*args) -> str:
    result = run_doctor(*args)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "DAMAGED" not in result.stdout
    return result.stdout


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["oneflow", "safetensors"])
def test_sigkill_during_repeated_saves(tmp_path, fmt):
    """Kills a process that saves snapshot after snapshot, at a random moment; every snapshot
    that is visible is complete and holds exactly the values saved under its name."""
    root, progress = tmp_path / "root", tmp_path / "progress"
    root.mkdir()
    rng = random.Random(f"{fmt}-{os.getpid()}")
    proc = start_child("save_until_killed", root, fmt, progress)
    _kill_when(proc, progress, lambda lines: len(lines) >= 2, rng.uniform(0.0, 0.5))
    reported = {words[1] for words in _lines(progress)}
    visible = sorted(n for n in os.listdir(root) if not n.startswith("."))
    # Reported saves are all there; at most one more (finished, not yet reported) may be.
    assert reported <= set(visible) and len(visible) <= len(reported) + 1
    for name in visible:
        k = int(name[len("ckpt_") : len("ckpt_") + 4])
        loaded = ckpt.get(root / name)
        assert sorted(loaded) == [f"layer{j}-weight" for j in range(6)]
        for j in range(6):
            np.testing.assert_array_equal(
                loaded[f"layer{j}-weight"].numpy(), np.full((128, 256), 1000.0 * k + j, np.float32)
            )
        if fmt == "oneflow":
            assert (root / name / "snapshot_done").is_file()
    leftovers = [n for n in os.listdir(root) if n.startswith(".")]
    assert all(n.endswith(".tmp") for n in leftovers)  # hidden, never read as a snapshot
    out = _doctor_finds_no_damage("--checkpoint", root)
    assert out.count("OK      ") == len(visible)
    assert out.count("temporary directory left by an interrupted save") == sum(
        (root / n).is_dir() for n in leftovers
    )


@pytest.mark.slow
def test_sigkill_during_logging_loses_at_most_one_flush_interval(tmp_path):
    logdir, progress = tmp_path / "logs", tmp_path / "progress"
    flush_secs = 0.5
    proc = start_child("log_until_killed", logdir, flush_secs, progress)

    def logging_for_2s(lines):
        times = [float(w[1]) for w in lines if w[0] != "file"]
        return bool(times) and time.time() - times[0] >= 2.0

    killed_at = _kill_when(proc, progress, logging_for_2s, random.uniform(0.0, 1.0))
    lines = _lines(progress)
    (path,) = [Path(w[1]) for w in lines if w[0] == "file"]
    logged = [(int(w[0]), float(w[1])) for w in lines if w[0] != "file"]
    # Everything logged more than one flush interval (plus scheduling slack on a shared
    # 2-core machine) before the kill must be readable.
    must_have = max((i for i, t in logged if t < killed_at - flush_secs - 1.0), default=-1)
    assert must_have >= 0, "the child logged too little before the kill to judge"
    (points,) = tb_scalars(path).values()
    steps = [s for s, _ in points]
    assert steps == list(range(len(steps)))  # a clean prefix: no gaps, nothing garbled
    assert steps[-1] >= must_have
    assert [v for _, v in points] == [float(s) for s in steps]
    with open(path, "rb") as f:  # the library's own reader agrees, and stops at the torn tail
        assert len(list(read_records(f, strict=True))) == len(steps) + 1  # + file_version
    _doctor_finds_no_damage("--logdir", logdir)


@pytest.mark.slow
def test_sigkill_during_training_with_pending_callbacks_then_restore(tmp_path):
    root, logdir, progress = tmp_path / "snapshots", tmp_path / "logs", tmp_path / "progress"
    proc = start_child("train_until_killed", root, logdir, progress)
    _kill_when(proc, progress, lambda lines: len(lines) >= 3, random.uniform(0.0, 0.4))
    saves = {w[1]: int(w[2]) for w in _lines(progress) if w[0] == "saved"}
    manager = flow.train.SimpleCheckPointManager(root)
    complete = manager.list_checkpoints()
    assert set(saves) <= set(complete) and len(complete) <= len(saves) + 1
    assert sorted(n for n in os.listdir(root) if not n.startswith(".")) == complete
    # A fresh process restores the newest complete snapshot, whose train step is the one
    # reported (or one 10 steps later if that save finished but was not reported).
    run_child("restore", root, tmp_path / "restored.npz")
    restored = np.load(tmp_path / "restored.npz")
    latest = str(restored["latest"])
    assert latest == complete[-1]
    trained = int(restored["saved/System-Train-TrainStep-train"][0])
    assert trained == saves.get(latest, max(saves.values()) + 10)
    assert {"hidden-weight", "hidden-bias", "out-weight", "out-bias"} <= {
        k.split("/", 1)[1] for k in restored.files if k.startswith("saved/")
    }
    # The summary log of the killed run is a clean prefix of the steps (how long a prefix
    # depends on the flush timing, which test_sigkill_during_logging_... checks).
    (events,) = event_files(logdir)
    steps = [e.step for e in tb_events(events) if e.summary.value]
    assert steps == list(range(len(steps)))
    _doctor_finds_no_damage("--logdir", logdir, "--checkpoint", root)
