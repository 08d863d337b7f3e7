"""Helpers for the TensorBoard-plugin tests: child-process environment and a served board."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from tests.timeouts import scaled

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def repo_env(**extra: str) -> dict[str, str]:
    """The environment for child processes: this checkout first on the import path."""
    env = dict(os.environ, PYTHONUNBUFFERED="1", JAX_PLATFORMS="cpu", **extra)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p
    )
    return env


def _oldest_tensorboard_requirements() -> list[str]:
    """The oldest TensorBoard minor version pyproject.toml allows (its newest patch release),
    as pip requirements with the two it needs that newer TensorBoards (and so this
    environment) may lack: ``six``, and ``pkg_resources``, which setuptools 81 removed."""
    found = re.search(r'"tensorboard>=(\d+)\.(\d+)', (REPO / "pyproject.toml").read_text())
    assert found, "pyproject.toml names no tensorboard>=X.Y floor"
    return [f"tensorboard~={found[1]}.{found[2]}.0", "setuptools<81", "six"]


@functools.cache
def oldest_tensorboard_python() -> str:
    """A Python whose ``tensorboard`` is the oldest that pyproject.toml allows and whose other
    packages are this environment's: ``FLOWJOB_TB_OLDEST_PYTHON`` if set, else a virtual
    environment built once under the checkout (``.venv-tb-oldest``) holding only that
    TensorBoard, with this environment's site-packages after its own."""
    named = os.environ.get("FLOWJOB_TB_OLDEST_PYTHON")
    if named:
        return named
    requirements = _oldest_tensorboard_requirements()
    home = REPO / ".venv-tb-oldest"
    python, stamp = home / "bin" / "python", home / "flowjob-requirement.txt"
    if python.exists() and stamp.exists() and stamp.read_text() == str(requirements):
        return str(python)
    shutil.rmtree(home, ignore_errors=True)
    own = home / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    steps = (
        [sys.executable, "-m", "venv", "--without-pip", str(home)],
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(own),
         *requirements],
    )  # fmt: skip
    for cmd in steps:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=scaled(600))
        if proc.returncode != 0:
            pytest.fail(f"{' '.join(cmd)} failed (rc={proc.returncode}):\n{proc.stderr[-2000:]}")
    # This environment's packages (and their .pth files) come after the venv's own.
    shared = sysconfig.get_path("purelib")
    (own / "zz_flowjob_env.pth").write_text(f"import site; site.addsitedir({shared!r})\n")
    stamp.write_text(str(requirements))
    return str(python)


class Board:
    """A process started from a shell command line that serves TensorBoard and prints
    ``... at http://HOST:PORT/`` once it answers (as ``flowjob board`` does)."""

    def __init__(self, command: str, cwd: Path, env: dict[str, str], timeout: float = 180):
        self.log = cwd / f"board-{os.getpid()}-{id(self)}.log"
        self._out = open(self.log, "w")  # noqa: SIM115
        self.proc = subprocess.Popen(
            ["bash", "-c", command],
            cwd=cwd,
            env=env,
            stdout=self._out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + scaled(timeout)
        while time.monotonic() < deadline:
            found = re.search(r" at (http://127\.0\.0\.1:\d+/)", self.log.read_text())
            if found:
                self.url = found.group(1)
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.25)
        self.stop()
        pytest.fail(
            f"`{command}` did not serve (rc={self.proc.returncode}):\n"
            f"{self.log.read_text()[-4000:]}"
        )

    def get(self, path: str) -> bytes:
        with urllib.request.urlopen(self.url + path.lstrip("/"), timeout=scaled(30)) as resp:
            return resp.read()

    def get_json(self, path: str):
        return json.loads(self.get(path))

    def post_json(self, path: str, body):
        import json

        req = urllib.request.Request(
            self.url + path.lstrip("/"),
            json.dumps(body).encode(),
            {"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=scaled(30)) as resp:
            return json.loads(resp.read())

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=scaled(15))
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self._out.close()


def scalar_event(step: int, value: float, tag: str = "loss") -> bytes:
    """One framed event record holding the scalar ``tag`` at ``step``."""
    from tensorboard.compat.proto import event_pb2

    from flowjob._src.summary._records import frame_record

    event = event_pb2.Event(wall_time=time.time(), step=step)
    event.summary.value.add(tag=tag, simple_value=value)
    return frame_record(event.SerializeToString())


def write_runs(logs: Path, count: int) -> list[Path]:
    """``count`` runs ``run00000``, ... under ``logs``, each an event file holding ``loss`` at
    step 0, written directly (``count`` writers would take minutes); their event files."""
    from tensorboard.compat.proto import event_pb2

    from flowjob._src.summary._records import frame_record

    head = event_pb2.Event(wall_time=time.time(), file_version="brain.Event:2")
    first = frame_record(head.SerializeToString()) + scalar_event(0, 1.0)
    files = []
    for i in range(count):
        run = logs / f"run{i:05d}"
        run.mkdir(parents=True)
        path = run / f"events.out.tfevents.1700000000.host.{i}.0"
        path.write_bytes(first)
        files.append(path)
    return files


def wait_for(fetch, ok=bool, timeout: float = 60.0):
    """Calls ``fetch`` until ``ok(result)`` (TensorBoard loads logs in the background)."""
    deadline = time.monotonic() + scaled(timeout)
    while True:
        try:
            result = fetch()
            if ok(result):
                return result
        except OSError:
            result = None
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s; last: {result!r}")
        time.sleep(0.5)


class LoggingProcess:
    """A Python child running ``script`` with ``args`` that prints ``LOGGED <step> <time>``
    for each point it writes; ``logged``: step -> time written, read on a thread."""

    def __init__(self, script: str, *args: str, cwd: Path | None = None):
        self.logged: dict[int, float] = {}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", script, *args],
            cwd=cwd,
            env=repo_env(),
            stdout=subprocess.PIPE,
            text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            if line.startswith("LOGGED"):
                _, step, t = line.split()
                self.logged[int(step)] = float(t)

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


@contextlib.contextmanager
def board_over_runs(cwd: Path, count: int):
    """``flowjob board`` over ``count`` runs written under ``cwd / "logs"``
    (``write_runs``): yields the board and the runs' event files."""
    files = write_runs(cwd / "logs", count)
    board = Board(
        f"{sys.executable} -m flowjob board logs --port {free_port()}", cwd=cwd, env=repo_env()
    )
    try:
        yield board, files
    finally:
        board.stop()
