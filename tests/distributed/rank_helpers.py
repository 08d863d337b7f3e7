"""Several local processes of one job, each running ``_rank_program.py SCENARIO``: starting
them, reading their output as it comes (with the time each line arrived), and what a clean
end looks like. Every wait here has a timeout; the ``cleanup`` fixture (conftest.py) kills
what is left."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.subprocess_env import cpu_child_env

PROGRAM = Path(__file__).with_name("_rank_program.py")
REPO = Path(__file__).resolve().parents[2]
HOST = socket.gethostname()
BOUND = 30.0  # every rank stops within this many seconds of a fault
LIMIT = 240  # no test process outlives this, whatever happens


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Rank:
    """One process, its output collected line by line with the time each line arrived."""

    def __init__(self, scenario: str, workdir: Path, rank: int, size: int, port: int, **env):
        full = cpu_child_env(
            FLOWJOB_COORDINATOR=f"127.0.0.1:{port}",
            FLOWJOB_NUM_PROCESSES=str(env.pop("sizes", {}).get(rank, size)),
            FLOWJOB_PROCESS_ID=str(rank),
            FLOWJOB_HEARTBEAT_TIMEOUT="5",
            PYTHONUNBUFFERED="1",
            **env,
        )
        self.proc = subprocess.Popen(
            [sys.executable, str(PROGRAM), scenario, str(workdir)],
            env=full,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[tuple[float, str]] = []
        self.ended: float | None = None
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append((time.monotonic(), line.rstrip("\n")))
        self.proc.wait()
        self.ended = time.monotonic()

    @property
    def text(self) -> str:
        return "\n".join(line for _, line in self.lines)

    def wait_for(self, pattern: str, timeout: float = LIMIT) -> float:
        """The time the first line matching ``pattern`` arrived."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for at, line in list(self.lines):
                if re.search(pattern, line):
                    return at
            if self.ended is not None and not self.reader.is_alive():
                break
            time.sleep(0.05)
        raise AssertionError(f"no line matching {pattern!r}; output:\n{self.text[-4000:]}")

    def finish(self, timeout: float = LIMIT) -> int:
        self.reader.join(timeout)
        if self.reader.is_alive():
            self.proc.kill()
            raise AssertionError(f"still running after {timeout} s:\n{self.text[-4000:]}")
        return self.proc.returncode


def start(scenario: str, tmp_path: Path, size: int = 2, ranks=None, **env) -> list[Rank]:
    port = env.pop("port", None) or free_port()
    return [Rank(scenario, tmp_path, r, size, port, **env) for r in (ranks or range(size))]


def first_line_at(rank: Rank, pattern: str) -> float:
    """When the first line matching ``pattern`` came (it must have)."""
    for at, line in rank.lines:
        if re.search(pattern, line):
            return at
    raise AssertionError(f"no line matching {pattern!r}:\n{rank.text[-3000:]}")


def assert_clean(rank: Rank) -> None:
    """A Python-level error: no C++ stack, no crash by signal."""
    assert rank.proc.returncode > 0, rank.text[-3000:]
    assert_no_crash(rank)


# A C++ abort, a crash, or JAX's fatal-error line (its coordination client's own end)
CRASHES = (
    "Check failure",
    "terminate called",
    "Segmentation",
    "Aborted",
    "Terminating process because the JAX distributed service",
)


def assert_no_crash(rank: Rank) -> None:
    for crash in CRASHES:
        assert crash not in rank.text, rank.text[-3000:]
