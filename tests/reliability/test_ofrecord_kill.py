"""SIGKILL while ``flowjob ofrecord`` writes a data set, at random moments: the folder a
reader opens either does not exist or holds the whole set (every record, as the manifest
lists); replacing a set with ``--overwrite`` leaves the old set or the new one, never a mix."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from reliability_helpers import child_env

from flowjob._src.cli.main import main as cli_main
from flowjob.data import read_records

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")

N = 40_000
PARTS = 4


def _ids(folder: Path) -> list[int]:
    parts = sorted(
        (p for p in folder.iterdir() if p.name.startswith("part-")), key=lambda p: int(p.name[5:])
    )
    return [r.feature["id"].int64_list.value[0] for p in parts for r in read_records(p)]


def _inspect(folder: Path) -> int:
    """``flowjob ofrecord inspect``'s exit status (in this process: the same code)."""
    return cli_main(["ofrecord", "inspect", str(folder)])


def _write(npz: Path, out: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "flowjob",
            "ofrecord",
            "npz",
            str(npz),
            str(out),
            "--part-num",
            str(PARTS),
            *extra,
        ],
        env=child_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for_files(proc: subprocess.Popen, out: Path) -> float:
    """Waits until the writer has started on its files (anything new appears next to or in
    ``out``); returns the time then."""

    def entries() -> set[str]:
        return set(os.listdir(out.parent)) | (set(os.listdir(out)) if out.is_dir() else set())

    before, deadline = entries(), time.monotonic() + 300
    while proc.poll() is None and not entries() - before:
        assert time.monotonic() < deadline, "the writer never started"
        time.sleep(0.002)
    return time.monotonic()


def _write_seconds(npz: Path, out: Path) -> float:
    """How long a complete write takes from its first file until ``out`` appears (the window
    to kill in; the interpreter's exit after it is left out)."""
    proc = _write(npz, out)
    started = _wait_for_files(proc, out)
    while not out.exists():
        assert proc.poll() is None, proc.stderr.read()
        time.sleep(0.002)
    window = time.monotonic() - started
    assert proc.wait(300) == 0, proc.stderr.read()
    proc.stderr.close()
    return window


def _kill_while_writing(proc: subprocess.Popen, out: Path, delay: float) -> bool:
    """SIGKILLs the writer ``delay`` seconds after its files appear; True if it was still
    running then."""
    try:
        _wait_for_files(proc, out)
        time.sleep(delay)
        if proc.poll() is not None:
            assert proc.returncode == 0, proc.stderr.read()
            return False
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(30) == -signal.SIGKILL
        return True
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


@pytest.mark.slow
def test_sigkill_while_writing_leaves_the_whole_set_or_nothing(tmp_path):
    npz = tmp_path / "rows.npz"
    np.savez(npz, id=np.arange(N)[:, None], x=np.ones((N, 4), np.float32))
    rng = random.Random(f"ofrecord-kill-{os.getpid()}")
    window = _write_seconds(npz, tmp_path / "whole")  # kills land inside it, some just after
    killed_mid_write = 0
    for trial in range(5):
        out = tmp_path / f"out{trial}"
        proc = _write(npz, out)
        killed = _kill_while_writing(proc, out, rng.uniform(0.0, 1.3 * window))
        if out.exists():
            assert _ids(out) == list(range(N)), f"trial {trial}: a short or broken set"
            assert _inspect(out) == 0
        else:
            killed_mid_write += killed
            assert _inspect(out) == 1  # nothing there is never taken for a data set
    assert killed_mid_write >= 1, "no kill landed while the set was being written"


@pytest.mark.slow
def test_sigkill_while_replacing_leaves_the_old_set_or_the_new_one(tmp_path):
    old = tmp_path / "old.npz"
    np.savez(old, id=np.arange(1_000, 1_000 + N // 2)[:, None])
    new = tmp_path / "new.npz"
    np.savez(new, id=np.arange(N)[:, None], x=np.ones((N, 4), np.float32))
    rng = random.Random(f"ofrecord-replace-{os.getpid()}")
    window = _write_seconds(new, tmp_path / "whole")
    for trial in range(3):
        out = tmp_path / f"out{trial}"
        first = _write(old, out, "--part-num", "7")  # more parts than the new set has
        assert first.wait(300) == 0, first.stderr.read()
        first.stderr.close()
        _kill_while_writing(_write(new, out, "--overwrite"), out, rng.uniform(0.0, 1.3 * window))
        ids = _ids(out)
        assert ids in (list(range(1_000, 1_000 + N // 2)), list(range(N))), (
            f"trial {trial}: {len(ids)} records, a mix or a short set"
        )
        assert _inspect(out) == 0
