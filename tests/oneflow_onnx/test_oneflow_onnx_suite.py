"""oneflow-onnx 0.3.4's own test suite, unchanged, against flowjob.

Its exporter reads ``flow.experimental.get_job_set()`` (OneFlow's ``JobSet`` protobuf) and
``oneflow._oneflow_internal.deprecated``; each test exports a job with it, runs the ONNX model
in onnxruntime and compares with the job's own output. The package is imported from the
clone's source (revision ``ONEFLOW_ONNX.revision``), and its CI's command
(``python3 -m pytest examples/oneflow2onnx``: 25 files, 154 tests) runs in a ``flowjob run``
process, where ``import oneflow`` is flowjob.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.upstream import ONEFLOW_ONNX, UpstreamError, extract

REPO = Path(__file__).resolve().parents[2]
LAUNCH = REPO / "tests" / "oneflow_v040" / "_launch.py"  # flowjob run + 2021 NumPy names
PYTEST_MAIN = Path(__file__).resolve().parent / "_pytest_main.py"
EXPECTED = 154  # tests its CI ran at this revision


def _summary(output: str) -> dict[str, int]:
    """pytest's last line (``3 failed, 151 passed in 80s``) as counts."""
    lines = [line for line in output.splitlines() if re.search(r"\d+ (passed|failed)", line)]
    if not lines:
        return {}
    return {kind: int(n) for n, kind in re.findall(r"(\d+) (\w+)", lines[-1])}


@pytest.mark.slow
@pytest.mark.timeout(3600)  # 154 exports and onnxruntime runs: ~10 min on a busy 2-core machine
def test_oneflow_onnx_suite_passes_unchanged():
    if ONEFLOW_ONNX.clone() is None:
        pytest.skip(ONEFLOW_ONNX.missing_line())
    if importlib.util.find_spec("six") is None:  # oneflow-onnx's one extra dependency
        pytest.skip("oneflow-onnx needs six (in the test extra): pip install six")
    try:
        root = extract(ONEFLOW_ONNX)
    except UpstreamError as exc:
        pytest.fail(str(exc))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ONEFLOW_")}
    env["PYTHONPATH"] = os.pathsep.join([str(root), str(REPO)])  # oneflow_onnx from the clone
    done = subprocess.run(
        [sys.executable, str(LAUNCH), str(PYTEST_MAIN), "-q", "-p", "no:cacheprovider",
         "examples/oneflow2onnx"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=3000,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    output = done.stdout + done.stderr
    counts = _summary(output)
    print(f"oneflow-onnx {ONEFLOW_ONNX.revision[:7]}: {counts}")  # shown with pytest -rA
    assert counts.get("passed") == EXPECTED and not counts.get("failed"), output[-6000:]
    assert done.returncode == 0, output[-6000:]
