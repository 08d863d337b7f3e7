"""Fixtures for the parity tests (this project's replacement for the coverage OneFlow's op tests
and OneFlow-Benchmark's programs gave): a fresh default session around every test, and
``flowjob_run`` to run a program of ``programs/`` with ``python -m flowjob run``."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import flowjob as flow
from tests.timeouts import scaled

REPO = Path(__file__).resolve().parents[2]
PROGRAMS = Path(__file__).resolve().parent / "programs"


@pytest.fixture(autouse=True)
def fresh_session() -> Iterator[None]:
    flow.clear_default_session()
    yield
    flow.clear_default_session()


@pytest.fixture
def run_program(tmp_path: Path) -> Callable[..., str]:
    """``run_program(name, *args, timeout=300)``: ``python -m flowjob run programs/<name>
    args`` in ``tmp_path``; fails the test (with the program's output) unless it exits 0, and
    returns its stdout."""

    def run(name: str, *args: object, timeout: float = 300) -> str:
        env = dict(os.environ, JAX_PLATFORMS="cpu")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
        done = subprocess.run(
            [sys.executable, "-m", "flowjob", "run", str(PROGRAMS / name), *map(str, args)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=scaled(timeout),
        )
        assert done.returncode == 0, (
            f"{name} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
        )
        return done.stdout

    return run
