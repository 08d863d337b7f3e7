"""``flowjob launch`` never leaves a process behind (issue 48, item 4): its ranks and rank 0's
coordination service end with it, whether it gets SIGHUP (terminal closed) or SIGKILL; a
launcher started with SIGINT ignored still stops its ranks on SIGINT; a rank's progress line
redrawn with ``\\r`` shows as it is drawn. Every wait is bounded; whatever is left is killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.distributed.rank_helpers import PROGRAM
from tests.subprocess_env import cpu_child_env
from tests.timeouts import scaled

LAUNCHED = Path(__file__).with_name("_launched_program.py")


class Launcher:
    """``flowjob launch --nproc 2 PROGRAM ARGS`` with its output read in chunks as it comes."""

    def __init__(self, program: Path, *args: str, ignore_sigint: bool = False):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "flowjob", "launch", "--nproc", "2", "--heartbeat-timeout",
             "5", str(program), *args],
            env=cpu_child_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
            if ignore_sigint else None,
        )  # fmt: skip
        self.output = b""
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while chunk := os.read(self.proc.stdout.fileno(), 65536):
            self.output += chunk

    @property
    def text(self) -> str:
        return self.output.decode(errors="replace")

    def wait_for(self, predicate, what: str, timeout: float = 180) -> None:
        deadline = time.monotonic() + scaled(timeout)
        while not predicate():
            assert self.proc.poll() is None or self.reader.is_alive(), self.text[-3000:]
            assert time.monotonic() < deadline, f"no {what}:\n{self.text[-3000:]}"
            time.sleep(0.05)


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rpartition(")")[2].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] not in ("Z", "X")
    except OSError:
        return False


def _wait_gone(pids: list[int], timeout: float = 20) -> list[int]:
    deadline = time.monotonic() + scaled(timeout)
    while time.monotonic() < deadline:
        if not any(_running(p) for p in pids):
            return []
        time.sleep(0.1)
    return [p for p in pids if _running(p)]


@pytest.fixture
def leftovers():
    """Pids to kill at the end of the test, whatever happened."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc, prctl")


@pytest.mark.parametrize("number", [signal.SIGHUP, signal.SIGKILL])
def test_ranks_and_the_coordination_service_end_with_the_launcher(number, tmp_path, leftovers):
    launcher = Launcher(PROGRAM, "sigterm", str(tmp_path))  # trains until stopped
    leftovers.append(launcher.proc.pid)
    launcher.wait_for(lambda: launcher.text.count("step 2 ") >= 2, "step 2 of both ranks")
    ranks = _children(launcher.proc.pid)
    assert len(ranks) == 2, launcher.text[-3000:]
    services = [c for r in ranks for c in _children(r)]  # rank 0's coordination service
    assert services, "rank 0 hosts no coordination service in a child"
    leftovers.extend(ranks + services)
    launcher.proc.send_signal(number)
    assert _wait_gone(ranks + services) == [], launcher.text[-3000:]
    launcher.proc.wait(timeout=scaled(30))


def test_a_launcher_with_sigint_ignored_stops_its_ranks_on_sigint(tmp_path, leftovers):
    launcher = Launcher(LAUNCHED, "wait", str(tmp_path), ignore_sigint=True)
    leftovers.append(launcher.proc.pid)
    launcher.wait_for(lambda: launcher.text.count(" pid ") >= 2, "both ranks")
    ranks = _children(launcher.proc.pid)
    leftovers.extend(ranks)
    for rank in (0, 1):  # the ranks' own SIGINT handling is Python's default, not ignored
        assert f"[rank {rank}] pid " in launcher.text
    assert launcher.text.count("sigint default_int_handler") == 2, launcher.text
    launcher.proc.send_signal(signal.SIGINT)
    assert launcher.proc.wait(timeout=scaled(60)) == 130, launcher.text[-3000:]
    assert _wait_gone(ranks) == []
    assert launcher.text.count("KeyboardInterrupt") == 2, launcher.text[-3000:]


def test_a_progress_line_redrawn_with_cr_shows_as_it_is_drawn(tmp_path, leftovers):
    launcher = Launcher(LAUNCHED, "progress", str(tmp_path))
    leftovers.append(launcher.proc.pid)
    # The ranks end the line only once "go" exists: the launcher must pass it on before.
    launcher.wait_for(
        lambda: all(f"[rank {r}] progress 3/3".encode() in launcher.output for r in (0, 1)),
        "progress line before its end",
    )
    (tmp_path / "go").touch()
    assert launcher.proc.wait(timeout=scaled(60)) == 0, launcher.text[-3000:]
    launcher.reader.join(timeout=scaled(10))
    for rank in (0, 1):
        assert f"\r[rank {rank}] progress 2/3".encode() in launcher.output
        assert f"[rank {rank}] line ended\n".encode() in launcher.output
