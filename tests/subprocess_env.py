"""The environment of a flowjob program that a test starts in a process of its own.

The test process runs with settings the child must not inherit: ``JAX_NUM_CPU_DEVICES`` and
``XLA_FLAGS`` give it several virtual CPU devices, which a child chooses for itself
(``flow.config.cpu_device_num``), and flowjob's compile cache. The child runs on the CPU
(``JAX_PLATFORMS=cpu``) because these tests play several devices per process and several
processes on one machine: on a GPU machine two ranks would otherwise share its one GPU.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.timeouts import scaled

__all__ = ["cpu_child_env", "run_json", "run_program"]

REPO = Path(__file__).resolve().parents[1]

_INHERITED_NOT = ("JAX_NUM_CPU_DEVICES", "XLA_FLAGS", "FLOWJOB_COORDINATOR", "FLOWJOB_PROCESS_ID")


def cpu_child_env(**extra: str) -> dict[str, str]:
    """``os.environ`` without the test process's device settings, CPU only, no compile
    cache, then ``extra``.

    >>> cpu_child_env(FLOWJOB_PROCESS_ID="1")["FLOWJOB_PROCESS_ID"]
    '1'
    """
    env = {k: v for k, v in os.environ.items() if k not in _INHERITED_NOT}
    env.update(JAX_PLATFORMS="cpu", FLOWJOB_CACHE_DIR="")
    return env | extra


def run_program(folder: Path, source: str, *args: str, timeout: float = 300) -> str:
    """Writes ``source`` to ``folder/prog.py``, runs it with ``flowjob run`` (arguments
    ``args``) in a process of its own (``cpu_child_env``, one CPU device unless the program
    asks for more, the repository importable) and returns its standard output; fails the test,
    with the program's standard error, when it exits with an error."""
    script = folder / "prog.py"
    script.write_text(source)
    done = subprocess.run(
        [sys.executable, "-m", "flowjob", "run", str(script), *args],
        cwd=folder,
        env=cpu_child_env(PYTHONPATH=str(REPO)),
        capture_output=True,
        text=True,
        timeout=scaled(timeout),
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def run_json(code: str, *args: str, env: dict[str, str], timeout: float = 300):
    """Runs ``code`` (``python -c``, dedented) with ``args`` in a process of its own with
    ``env``, and returns the last line it printed, read as JSON; fails the test, with the
    child's standard error, when it exits with an error."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(timeout),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
