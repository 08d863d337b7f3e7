"""Fixtures for the example tests: run ``examples/<name>.py`` in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.timeouts import scaled

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


@pytest.fixture
def run_example(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess]:
    """``run_example(name, *args, timeout=180)``: ``python examples/<name>.py args`` in
    ``tmp_path`` (so outputs under ``runs/`` land there); returns the completed process."""

    def run(name: str, *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(
            os.pathsep
        )
        env.setdefault("JAX_PLATFORMS", "cpu")
        proc = subprocess.run(
            [sys.executable, str(EXAMPLES / f"{name}.py"), *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=scaled(timeout),
        )
        assert proc.returncode == 0, f"{name} failed:\n{proc.stdout}\n{proc.stderr}"
        return proc

    return run
