"""Helpers for the TensorBoard-plugin tests: child-process environment and a served board."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
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
