"""OneFlow v0.4's own flow.model test, and its scenario as a lazy OneFlow program, run through
``flowjob run`` (so ``import oneflow`` is flowjob)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.timeouts import scaled

HERE = Path(__file__).parent
REPO = HERE.parents[1]
UPSTREAM = "oneflow/python/test/ops/test_model.py"


def flowjob_run(
    script: Path, *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]),
        **(env or {}),
    )
    return subprocess.run(
        [sys.executable, "-m", "flowjob", "run", str(script), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(600),
    )


def test_lazy_program_of_the_upstream_scenario(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    proc = flowjob_run(HERE / "programs" / "lazy_model_program.py", str(work), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "lazy model program: OK" in proc.stdout


def test_upstream_test_model(tmp_path):
    src = os.environ.get("FLOWJOB_ONEFLOW_SRC")
    if not src:
        pytest.skip("set FLOWJOB_ONEFLOW_SRC to a OneFlow git clone (tag v0.4.0) to run this")
    archive = subprocess.run(
        ["git", "-C", src, "archive", "v0.4.0", UPSTREAM], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tmp_path)], input=archive, check=True)
    script = tmp_path / UPSTREAM
    # Its one class skips itself unless eager mode is on: run it eager, as OneFlow's eager CI did.
    proc = flowjob_run(script, cwd=script.parent, env={"ONEFLOW_TEST_ENABLE_EAGER": "1"})
    out = proc.stdout + proc.stderr
    assert "Ran 1 test" in out, out  # the imports (oneflow.python.nn.parameter) resolve
    # its model trains eagerly (flow.optim.SGD), validates and saves checkpoints every 5 steps
    assert proc.returncode == 0, out
    assert "skipped" not in out and out.rstrip().endswith("OK"), out
