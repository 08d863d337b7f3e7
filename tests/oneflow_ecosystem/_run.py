"""Runs one program of the suite through ``flowjob run`` in a temporary folder of its own and
says how it went."""

from __future__ import annotations

import dataclasses
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tests.timeouts import scaled

from ._tree import copy_folder
from .program import Program

REPO = Path(__file__).resolve().parents[2]
# flowjob run, with the library names of 2021 the programs use (np.float, yaml.load...)
LAUNCH = Path(__file__).resolve().parent / "_launch.py"
# CPU only; figures are written to files, never shown.
ENV = {
    "JAX_PLATFORMS": "cpu",
    "CUDA_VISIBLE_DEVICES": "",
    "MPLBACKEND": "Agg",
    "TF_CPP_MIN_LOG_LEVEL": "3",
}
# `python -m unittest ARGS` for a test module (the standard library's unittest/__main__.py
# imports relatively, so it cannot be run as a file)
UNITTEST_DRIVER = "import unittest\n\nunittest.main(module=None)\n"
STOPPED = -2  # the program was ended when its output showed enough (Program.stop_after)
_EXCEPTION = re.compile(r"^(?:[\w.]+\.)?\w*(?:Error|Exception|Exit|Interrupt)\b.*$", re.M)


@dataclasses.dataclass
class Outcome:
    program: Program
    status: str  # "pass" | "cause" (stopped at its named cause) | "fail" | "no clone"
    detail: str = ""
    seconds: float = 0.0
    output: str = ""


def last_error(out: str) -> str:
    """The last exception line of a program's output (a traceback ends with it), shortened."""
    found = _EXCEPTION.findall(out)
    if not found:
        return ""
    line = " ".join(found[-1].split())
    return line if len(line) <= 200 else line[:197] + "..."


def _env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ONEFLOW_")}
    env.update(ENV)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    env.update(extra)
    return env


def _call(
    cmd: list[str], cwd: Path, env: dict[str, str], timeout: float, stop: str = ""
) -> tuple[int, str]:
    """(exit status, stdout and stderr as they interleaved); -1 when it ran past ``timeout``;
    ``STOPPED`` when a line matched ``stop`` (the program is then ended, with its children)."""
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        errors="replace",
        start_new_session=True,  # its own process group: ended as a whole
    )
    lines: list[str] = []
    matched = threading.Event()
    pattern = re.compile(stop) if stop else None

    def read() -> None:
        for line in proc.stdout:
            lines.append(line)
            if pattern is not None and pattern.search(line):
                matched.set()
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(scaled(timeout))
    code = proc.poll()
    if matched.is_set():
        code = STOPPED
    elif reader.is_alive():
        code = -1
    try:  # what is left of its process group (a stopped or timed-out run, stray children)
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()
    reader.join(5)
    return (proc.returncode if code is None else code), "".join(lines)


def _judge(program: Program, code: int, out: str, seconds: float) -> Outcome:
    if code == 0 and (not program.expect or re.search(program.expect, out, re.M)):
        return Outcome(program, "pass", "", seconds, out)
    if code == STOPPED:
        return Outcome(
            program, "pass", f"stopped once its output matched {program.stop_after!r}", seconds, out
        )
    if code == -1:
        error = f"no result within {program.timeout:.0f} s"
    else:
        error = last_error(out) or f"exit status {code}"
        if code == 0:
            error = f"exit status 0 but no line matches {program.expect!r}"
    known = program.known
    if known is not None and code not in (0, -1) and re.search(known.marker, out, re.M):
        return Outcome(program, "cause", error, seconds, out)
    return Outcome(program, "fail", error, seconds, out)


def run_program(program: Program, clone: str | os.PathLike | None = None) -> Outcome:
    """``flowjob run <script> <args>`` in a fresh copy of the program's folder (its data
    written there first), or, for a program another test file runs, that test."""
    if program.repo.clone(clone) is None:
        return Outcome(program, "no clone", program.repo.missing_line())
    for upstream, _ in program.requires:
        if upstream.clone() is None:
            return Outcome(program, "no clone", upstream.missing_line())
    if program.covered_by:
        return _run_covering_test(program, clone)
    with tempfile.TemporaryDirectory(prefix="oneflow_ecosystem_") as tmp:
        work = Path(tmp) / "program"
        copy_folder(program.repo, program.copied, work, clone)
        cwd = work / program.run_folder
        cwd.mkdir(parents=True, exist_ok=True)
        if program.data is not None:
            program.data(cwd)
        paths = [str(work / p) for p in program.pythonpath]
        for upstream, folder in program.requires:
            target = Path(tmp) / "requires" / upstream.name
            copy_folder(upstream, folder, target)
            paths.append(str(target))
        env = _env({})
        env["PYTHONPATH"] = os.pathsep.join([*paths, env["PYTHONPATH"]])
        start = time.monotonic()
        for script, args in program.before:
            cmd = [sys.executable, str(LAUNCH), str(work / script), *args]
            code, out = _call(cmd, cwd, env, program.timeout)
            if code != 0:
                seconds = time.monotonic() - start
                error = last_error(out) or f"exit status {code}"
                return Outcome(program, "fail", f"{script} (run first): {error}", seconds, out)
        cmd = [sys.executable, str(LAUNCH), str(work / program.script), *program.args]
        if program.unittest:
            driver = cwd / "_ecosystem_unittest.py"
            driver.write_text(UNITTEST_DRIVER)
            cmd = [sys.executable, str(LAUNCH), str(driver), "-v", Path(program.script).stem]
            cmd += program.args
        code, out = _call(cmd, cwd, env, program.timeout, program.stop_after)
        return _judge(program, code, out, time.monotonic() - start)


def _run_covering_test(program: Program, clone: str | os.PathLike | None) -> Outcome:
    root = program.repo.clone(clone)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", program.covered_by]
    start = time.monotonic()
    code, out = _call(cmd, REPO, _env({program.repo.env: str(root)}), program.timeout)
    seconds = time.monotonic() - start
    tally = out.strip().splitlines()[-1] if out.strip() else ""
    if code == 0 and " passed" in tally and "skipped" not in tally:
        return Outcome(program, "pass", "", seconds, out)
    error = last_error(out) or tally or f"exit status {code}"
    return Outcome(program, "fail", f"{program.covered_by}: {error}", seconds, out)
