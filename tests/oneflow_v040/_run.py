"""Runs one of OneFlow's test files (from a clone, see ``ops_folder``) through ``flowjob run``
at one device count and classifies the outcome; ``device_counts`` reads which counts a file
has tests for."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.timeouts import scaled
from tests.upstream import ONEFLOW, extract

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
TESTS = "oneflow/python/test"  # the folder extracted; its ops/ holds the files run here

# One node, lazy mode unless the file is eager-only (eager_only); the device count is set
# per run (run_file). ONEFLOW_TEST_CPU_ONLY stays unset: the "gpu" cases run too, on the CPU
# (a device tag picks a placement in flowjob; every op has one JAX lowering).
# TensorFlow (the files' reference) is pinned so that the host CPU does not choose its kernels:
# without oneDNN (TensorFlow turns it on by itself only on some Intel CPUs) its CPU build has
# no NCHW and no dilated convolution or pooling, and conv1d/conv3d/pooling references fail.
ENV = {
    "TF_CPP_MIN_LOG_LEVEL": "3",
    "TF_ENABLE_ONEDNN_OPTS": "1",
    "CUDA_VISIBLE_DEVICES": "",
    "JAX_PLATFORMS": "cpu",
}


# Modules of the folder that other files import; they hold no test.
HELPERS = frozenset({"test_util.py", "test_global_storage.py"})
# The device counts of one node that OneFlow's skip decorators name; 2-node ones cannot run on
# one machine (their classes skip themselves and are reported as such).
_ONE_NODE = re.compile(r"skip_unless_1n(\d)d\(")
_TWO_NODES = re.compile(r"skip_unless_[2-9]n\d+d\(")
# A test class and the module-level decorator that skips a class unless the run is eager.
_CLASS = re.compile(r"^class \w+\(", re.M)
_EAGER_ONLY = re.compile(
    r"^@unittest\.skipIf\(\s*not\s+flow\.unittest\.env\.eager_execution_enabled\(\)", re.M
)


def oneflow_test_files(ops: Path) -> list[str]:
    """Every test file of the extracted ``ops`` folder (224 at v0.4.0)."""
    return sorted(p.name for p in ops.glob("test_*.py") if p.name not in HELPERS)


def device_counts(path: Path) -> tuple[int, ...]:
    """The device counts ``path`` runs at: 1 always (undecorated classes run there), plus
    each count of its ``skip_unless_1n<N>d`` classes."""
    text = path.read_text(encoding="utf-8")
    return tuple(sorted({1, *(int(n) for n in _ONE_NODE.findall(text))}))


def needs_two_nodes(path: Path) -> bool:
    """Whether ``path`` has classes for several nodes (``skip_unless_2n1d`` ...)."""
    return bool(_TWO_NODES.search(path.read_text(encoding="utf-8")))


def eager_only(path: Path) -> bool:
    """Whether every class of ``path`` skips itself unless eager mode is on: such a file
    runs with ``ONEFLOW_TEST_ENABLE_EAGER=1`` (a lazy run would only skip), as OneFlow's
    CI ran the folder in both modes."""
    text = path.read_text(encoding="utf-8")
    classes = len(_CLASS.findall(text))
    return classes > 0 and len(_EAGER_ONLY.findall(text)) == classes


def tests_tree(clone: str | os.PathLike | None = None) -> Path:
    """``oneflow/python/test`` of OneFlow v0.4.0 (``ops/``, ``modules/``, ``xrt/``...),
    extracted from ``clone`` (or ``$FLOWJOB_ONEFLOW_SRC``) into a temporary folder; raises
    ``UpstreamError`` without one."""
    return extract(ONEFLOW, TESTS, clone=clone) / TESTS


def ops_folder(clone: str | os.PathLike | None = None) -> Path:
    """``oneflow/python/test/ops`` of OneFlow v0.4.0 (see ``tests_tree``)."""
    return tests_tree(clone) / "ops"


_RAN = re.compile(r"^Ran (\d+) tests? in", re.M)
_SKIPPED = re.compile(r"skipped=(\d+)")
# unittest's last line; the per-test verdicts can be split by the tests' own prints.
_FAILED = re.compile(r"^FAILED \((.*)\)$", re.M)
_FAILED_COUNT = re.compile(r"\b(?:failures|errors)=(\d+)")
_SKIP_REASON = re.compile(r"\.\.\. skipped (['\"])(.*)\1$", re.M)  # the reason's repr
_EXC = re.compile(r"^(\w+(?:\.\w+)*(?:Error|Exception|API|Module|Name|Exit)\b.*)$", re.M)


@dataclasses.dataclass
class Result:
    file: str  # an ops/ file by its name; a file of another folder as "folder/name"
    status: str  # "pass" | "fail" | "timeout" | "skip" (every test skipped) | "empty" (none ran)
    devices: int = 1  # ONEFLOW_TEST_DEVICE_NUM, and the virtual CPU devices JAX starts with
    ran: int = 0
    skipped: int = 0
    failed: int = 0
    seconds: float = 0.0
    error: str = ""  # the first exception line of the output, for the table
    skip_reason: str = ""  # the first skip message, when every test skipped
    output: str = ""
    eager: bool = False  # run with ONEFLOW_TEST_ENABLE_EAGER=1
    column: str = "lazy"  # ops/ only: "lazy" (its CI's lazy run) or "eager" (the eager rerun)

    @property
    def key(self) -> str:
        """The run's key among the file's runs in results.json: its device count, prefixed
        "eager " for the eager column of ops/."""
        return f"eager {self.devices}" if self.column == "eager" else str(self.devices)


def run_env(devices: int = 1, eager: bool = False, cpu_only: bool = False) -> dict[str, str]:
    """The environment of one run: this one without its ``ONEFLOW_TEST_*`` variables, plus
    ``ENV``, ``devices`` devices (``ONEFLOW_TEST_DEVICE_NUM`` and as many virtual CPU devices
    for JAX), eager mode and CPU-only mode when asked, and this repository on the path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ONEFLOW_TEST_")}
    env.update(ENV)
    env["ONEFLOW_TEST_DEVICE_NUM"] = str(devices)
    env["JAX_NUM_CPU_DEVICES"] = str(devices)
    if cpu_only:
        env["ONEFLOW_TEST_CPU_ONLY"] = "1"
    if eager:
        env["ONEFLOW_TEST_ENABLE_EAGER"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    return env


def execute(
    args: list[str], cwd: Path, env: dict[str, str], timeout: float
) -> tuple[int | None, str, float]:
    """``flowjob run ARGS`` (through ``_launch.py``) in ``cwd``: (exit status, or None when
    it ran past ``timeout`` seconds (scaled to the machine's load), output, seconds)."""
    cmd = [sys.executable, str(HERE / "_launch.py"), *args]
    start = time.monotonic()
    try:
        proc = subprocess.run(
            cmd,
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=scaled(timeout),
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        return None, out, time.monotonic() - start
    return proc.returncode, proc.stdout + proc.stderr, time.monotonic() - start


def timed_out(name: str, devices: int, seconds: float, timeout: float, out: str) -> Result:
    return Result(
        name,
        "timeout",
        devices,
        seconds=seconds,
        error=f"no result within {timeout:.0f} s",
        output=out,
    )


def run_file(
    name: str,
    ops: Path,
    timeout: float = 600.0,
    cpu_only: bool = False,
    devices: int = 1,
    eager: bool | None = None,
) -> Result:
    """Runs ``ops/<name>`` (``ops``: see ``ops_folder``; or any folder of test files) as
    ``flowjob run ops/<name> -v`` in a subprocess, in a fresh temporary folder (the files
    write logs and snapshots to their working directory), on one node with ``devices``
    devices: ``ONEFLOW_TEST_DEVICE_NUM`` picks the file's classes for that count and JAX
    starts with as many virtual CPU devices (``JAX_NUM_CPU_DEVICES``), so
    ``flow.config.gpu_device_num(k)`` for any ``k <= devices`` finds them whichever test runs
    first.

    ``cpu_only``: set ``ONEFLOW_TEST_CPU_ONLY=1`` (the file then skips its "gpu" cases).
    ``eager``: run with ``ONEFLOW_TEST_ENABLE_EAGER=1``; None (default): only an eager-only
    file (``eager_only``) does.
    """
    eager = eager_only(ops / name) if eager is None else eager
    env = run_env(devices, eager, cpu_only)
    # As OneFlow's CI: one device runs each file as a script; 2 and 4 devices ran the folder
    # through unittest discovery, which also runs the files without unittest.main().
    path = str(ops / name)
    script = [path, "-v"] if devices == 1 else [str(HERE / "_discover.py"), path]
    with tempfile.TemporaryDirectory(prefix="oneflow_v040_") as work:
        code, out, seconds = execute(script, Path(work), env, timeout)
    if code is None:
        result = timed_out(name, devices, seconds, timeout, out)
    else:
        result = classify(name, code, out, seconds, devices)
    result.eager = eager
    return result


def classify(name: str, returncode: int, out: str, seconds: float, devices: int = 1) -> Result:
    """pass: exit 0 and at least one test ran unskipped; skip: every test skipped; empty:
    exit 0 and no test at all (all commented out upstream, or a file without
    ``unittest.main()`` run as a script)."""
    ran = sum(int(n) for n in _RAN.findall(out))
    skipped = sum(int(n) for n in _SKIPPED.findall(out))
    failed = sum(int(n) for summary in _FAILED.findall(out) for n in _FAILED_COUNT.findall(summary))
    error = first_error(out)
    reason = ""
    if returncode == 0 and not ran:  # no test here (all commented out, or no main())
        status = "empty"
    elif returncode == 0 and ran and skipped >= ran:
        status = "skip"
        reasons = _SKIP_REASON.findall(out)
        reason = reasons[0][1] if reasons else ""
    elif returncode == 0 and ran:
        status = "pass"
    else:
        status = "fail"
        if not error:
            error = f"exit status {returncode}" + ("" if ran else ", no test ran")
    return Result(name, status, devices, ran, skipped, failed, seconds, error, reason, out)


def first_error(out: str) -> str:
    """The first exception line (``SomeError: message``) of a test run's output, shortened."""
    match = _EXC.search(out)
    if not match:
        return ""
    line = " ".join(match.group(1).split())
    return line if len(line) <= 160 else line[:157] + "..."
