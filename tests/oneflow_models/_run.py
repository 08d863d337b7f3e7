"""Runs one case of ``suite.CASES`` through ``flowjob run`` and says how it went."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.oneflow_v040._run import ENV, TESTS, first_error
from tests.timeouts import scaled
from tests.upstream import ONEFLOW, extract

from .suite import Case, Need

REPO = Path(__file__).resolve().parents[2]
LAUNCH = REPO / "tests" / "oneflow_v040" / "_launch.py"  # flowjob run + 2021 NumPy names


def models_folder(clone: str | os.PathLike | None = None) -> Path:
    """``oneflow/python/test/models`` of OneFlow v0.4.0, extracted from ``clone`` (or
    ``$FLOWJOB_ONEFLOW_SRC``); raises ``UpstreamError`` without one."""
    return extract(ONEFLOW, TESTS, clone=clone) / TESTS / "models"


@dataclasses.dataclass
class Outcome:
    case: Case
    status: str  # "pass" | "fail" | "data" (stopped at its private data) | "not run"
    error: str = ""
    seconds: float = 0.0
    output: str = ""


def run_case(case: Case, models: Path, timeout: float = 600.0) -> Outcome:
    """``flowjob run <models>/<entry> <selector>`` in a fresh temporary folder."""
    if case.need is Need.TWO_MACHINES:
        return Outcome(case, "not run", case.need.value)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ONEFLOW_TEST_")}
    env.update(ENV)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    cmd = [sys.executable, str(LAUNCH), str(models / case.entry), case.selector]
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="oneflow_models_") as work:
        try:
            proc = subprocess.run(
                cmd,
                cwd=work,
                env=env,
                capture_output=True,
                text=True,
                timeout=scaled(timeout),
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            return Outcome(case, "fail", f"no result within {timeout:.0f} s", timeout)
    seconds = time.monotonic() - start
    out = proc.stdout + proc.stderr
    passed = proc.returncode == 0 and "\nOK" in out and "Ran 1 test" in out
    if passed:
        return Outcome(case, "pass", "", seconds, out)
    error = first_error(out) or f"exit status {proc.returncode}"
    if case.need is Need.PRIVATE_DATA and "FileNotFoundError" in error and case.data in error:
        return Outcome(case, "data", error, seconds, out)
    return Outcome(case, "fail", error, seconds, out)
