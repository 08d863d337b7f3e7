"""OneFlow v0.4.0's ``test/custom_ops/test_user_sigmoid.py`` (a Python-kernel op module beside
it: ``user_sigmoid/``) run unchanged through ``flowjob run`` from a clone named by
``FLOWJOB_ONEFLOW_SRC``; without one the test skips with one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.timeouts import scaled
from tests.upstream import ONEFLOW, UpstreamError, extract

REPO = Path(__file__).parents[2]
FOLDER = "oneflow/python/test/custom_ops"


@pytest.fixture(scope="module")
def custom_ops() -> Path:
    if ONEFLOW.clone() is None:
        pytest.skip(ONEFLOW.missing_line())
    try:
        return extract(ONEFLOW, FOLDER) / FOLDER
    except UpstreamError as exc:
        pytest.fail(str(exc))


def test_user_sigmoid_file_passes(custom_ops, tmp_path):
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]),
        JAX_PLATFORMS="cpu",
    )
    proc = subprocess.run(
        [sys.executable, "-m", "flowjob", "run", str(custom_ops / "test_user_sigmoid.py"), "-v"],
        cwd=tmp_path,  # OneFlow's version copied the module folder into the working directory
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(600),
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "Ran 2 tests" in out and out.rstrip().endswith("OK"), out
    # Both NumPy kernels ran (they print their arguments).
    assert "user sigmoid forward args" in out and "user sigmoid backward args" in out, out
