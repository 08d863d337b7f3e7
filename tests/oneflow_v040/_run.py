"""Runs one of OneFlow's test files (from a clone, see ``ops_folder``) through ``flowjob run``
and classifies the outcome."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.upstream import ONEFLOW, extract

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
TESTS = "oneflow/python/test"  # the folder extracted; its ops/ holds the files run here

# One node, one device, no eager. ONEFLOW_TEST_CPU_ONLY stays unset: the "gpu" cases run too,
# on the CPU (a device tag picks a placement in flowjob; every op has one JAX lowering).
# TensorFlow (the files' reference) is pinned so that the host CPU does not choose its kernels:
# without oneDNN (TensorFlow turns it on by itself only on some Intel CPUs) its CPU build has
# no NCHW and no dilated convolution or pooling, and conv1d/conv3d/pooling references fail.
ENV = {
    "ONEFLOW_TEST_DEVICE_NUM": "1",
    "TF_CPP_MIN_LOG_LEVEL": "3",
    "TF_ENABLE_ONEDNN_OPTS": "1",
    "CUDA_VISIBLE_DEVICES": "",
    "JAX_PLATFORMS": "cpu",
}


def ops_folder(clone: str | os.PathLike | None = None) -> Path:
    """``oneflow/python/test/ops`` of OneFlow v0.4.0, extracted from ``clone`` (or
    ``$FLOWJOB_ONEFLOW_SRC``) into a temporary folder; raises ``UpstreamError`` without one."""
    return extract(ONEFLOW, TESTS, clone=clone) / TESTS / "ops"


_RAN = re.compile(r"^Ran (\d+) tests? in", re.M)
_SKIPPED = re.compile(r"skipped=(\d+)")
_CASE = re.compile(r"^(test\w*) \(.*?\) \.\.\. (ok|FAIL|ERROR|skipped.*|expected failure)$", re.M)
_EXC = re.compile(r"^(\w+(?:\.\w+)*(?:Error|Exception|API|Module|Name|Exit)\b.*)$", re.M)


@dataclasses.dataclass
class Result:
    file: str
    status: str  # "pass" | "fail" | "skip" | "timeout"
    ran: int = 0
    skipped: int = 0
    failed: int = 0
    seconds: float = 0.0
    error: str = ""  # the first exception line of the output, for the table
    output: str = ""


def run_file(name: str, ops: Path, timeout: float = 600.0, cpu_only: bool = False) -> Result:
    """Runs ``ops/<name>`` (``ops``: see ``ops_folder``) as ``flowjob run ops/<name> -v`` in a
    subprocess, in a fresh
    temporary folder (the files write logs and snapshots to their working directory).

    ``cpu_only``: set ``ONEFLOW_TEST_CPU_ONLY=1`` (the file then skips its "gpu" cases).
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("ONEFLOW_TEST_")}
    env.update(ENV)
    if cpu_only:
        env["ONEFLOW_TEST_CPU_ONLY"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    cmd = [sys.executable, str(HERE / "_launch.py"), str(ops / name), "-v"]
    start = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="oneflow_v040_") as work:
            proc = subprocess.run(
                cmd,
                cwd=work,
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout,
                stdin=subprocess.DEVNULL,
            )
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        return Result(
            name,
            "timeout",
            seconds=time.monotonic() - start,
            error=f"no result within {timeout:.0f} s",
            output=out,
        )
    out = proc.stdout + proc.stderr
    return classify(name, proc.returncode, out, time.monotonic() - start)


def classify(name: str, returncode: int, out: str, seconds: float) -> Result:
    """pass: exit 0 and at least one test ran unskipped; skip: every test skipped."""
    ran = sum(int(n) for n in _RAN.findall(out))
    skipped = sum(int(n) for n in _SKIPPED.findall(out))
    failed = sum(1 for _, verdict in _CASE.findall(out) if verdict in ("FAIL", "ERROR"))
    error = first_error(out)
    if returncode == 0 and ran and skipped >= ran:
        status = "skip"
    elif returncode == 0 and ran:
        status = "pass"
    else:
        status = "fail"
        if not error:
            error = f"exit status {returncode}" + ("" if ran else ", no test ran")
    return Result(name, status, ran, skipped, failed, seconds, error, out)


def first_error(out: str) -> str:
    """The first exception line (``SomeError: message``) of a test run's output, shortened."""
    match = _EXC.search(out)
    if not match:
        return ""
    line = " ".join(match.group(1).split())
    return line if len(line) <= 160 else line[:157] + "..."
