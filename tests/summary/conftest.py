"""Shared fixtures for summary tests: a real TensorBoard server to query over HTTP.

Usage::

    def test_something(tb_server, tmp_path):
        ...write event files under tmp_path...
        srv = tb_server(tmp_path)                      # --load_fast=false
        srv_rust = tb_server(tmp_path, load_fast=True)  # Rust data server
        runs = srv.get_json("/data/runs")
        rows = srv.wait_for(lambda: srv.get_json("/data/plugin/scalars/scalars?run=.&tag=x"))

``tb_server_module`` is the same factory with module scope (start one server per module and
share it between tests). ``load_fast`` is a parametrised fixture (``False``, ``True``) for tests
that should run against both data servers.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.timeouts import scaled

TENSORBOARD = Path(sys.executable).with_name("tensorboard")
if not TENSORBOARD.exists():  # fall back to whatever is on PATH
    TENSORBOARD = Path(shutil.which("tensorboard") or "/work/main/.venv/bin/tensorboard")

STARTUP_TIMEOUT_S = 90.0
# "Keep (nearly) everything". Not 0: TensorBoard 2.21 treats 0 as "keep all" when loading but
# its plugins also downsample their HTTP answers *to* that number, so 0 returns [] (checked
# with both --load_fast=false and true), contrary to visualization.md 5.1.
SAMPLES_PER_PLUGIN = "scalars=100000,images=1000,histograms=10000,tensors=10000"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TensorBoardServer:
    """A running ``tensorboard`` process bound to 127.0.0.1 with small HTTP helpers."""

    def __init__(self, logdir: Path, load_fast: bool, extra_args: tuple[str, ...] = ()):
        self.logdir = Path(logdir)
        self.load_fast = load_fast
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._log = open(self.logdir.parent / f"tensorboard-{self.port}.log", "wb")  # noqa: SIM115
        cmd = [
            str(TENSORBOARD),
            "--logdir",
            str(self.logdir),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--reload_interval",
            "1",
            "--samples_per_plugin",
            SAMPLES_PER_PLUGIN,
            f"--load_fast={'true' if load_fast else 'false'}",
            *extra_args,
        ]
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, env=env)
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"tensorboard exited early (rc={self.proc.returncode}):\n" + self.server_log()
                )
            try:
                self.get_json("/data/runs", timeout=2)
                return
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.25)
        self.close()
        raise RuntimeError("tensorboard did not answer /data/runs in time:\n" + self.server_log())

    def server_log(self) -> str:
        self._log.flush()
        return Path(self._log.name).read_text(errors="replace")[-4000:]

    # --- HTTP helpers -------------------------------------------------------------------
    def get(self, path: str, timeout: float = 30) -> bytes:
        with urllib.request.urlopen(self.url + path, timeout=scaled(timeout)) as resp:
            return resp.read()

    def get_json(self, path: str, timeout: float = 30) -> Any:
        return json.loads(self.get(path, timeout=timeout))

    def post_json(self, path: str, body: Any, timeout: float = 30) -> Any:
        req = urllib.request.Request(
            self.url + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=scaled(timeout)) as resp:
            return json.loads(resp.read())

    def post_form(self, path: str, fields: dict[str, Any], timeout: float = 30) -> Any:
        data = urllib.parse.urlencode(fields, doseq=True).encode()
        req = urllib.request.Request(self.url + path, data=data, method="POST")
        with urllib.request.urlopen(req, timeout=scaled(timeout)) as resp:
            return json.loads(resp.read())

    def wait_for(
        self, fetch: Callable[[], Any], ok: Callable[[Any], bool] = bool, timeout: float = 30.0
    ) -> Any:
        """Polls ``fetch()`` until ``ok(result)``; HTTP errors count as "not yet"."""
        deadline = time.monotonic() + scaled(timeout)
        last: Any = None
        err: Exception | None = None
        while time.monotonic() < deadline:
            try:
                last = fetch()
                err = None
                if ok(last):
                    return last
            except (urllib.error.URLError, OSError, ValueError, KeyError) as e:
                err = e
            time.sleep(0.3)
        raise AssertionError(
            f"condition not met within {timeout}s; last={last!r} err={err!r}\n" + self.server_log()
        )

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=scaled(10))
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=scaled(10))
        self._log.close()


@pytest.fixture(params=[False, True], ids=["load_fast=false", "load_fast=true"])
def load_fast(request) -> bool:
    """Parametrises a test over the Python loader and the Rust data server."""
    return request.param


def _factory() -> Iterator[Callable[..., TensorBoardServer]]:
    servers: list[TensorBoardServer] = []

    def start(
        logdir: os.PathLike | str, load_fast: bool = False, extra_args: tuple[str, ...] = ()
    ) -> TensorBoardServer:
        srv = TensorBoardServer(Path(logdir), load_fast, tuple(extra_args))
        servers.append(srv)
        return srv

    yield start
    for srv in servers:
        srv.close()


@pytest.fixture
def tb_server() -> Iterator[Callable[..., TensorBoardServer]]:
    """Factory ``tb_server(logdir, load_fast=False)`` -> TensorBoardServer; killed at teardown."""
    yield from _factory()


@pytest.fixture(scope="module")
def tb_server_module() -> Iterator[Callable[..., TensorBoardServer]]:
    """Module-scoped variant of ``tb_server`` (one server shared by a module's tests)."""
    yield from _factory()
