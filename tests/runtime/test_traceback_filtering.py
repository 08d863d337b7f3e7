"""What a user reads first when they make a mistake: their own frames and flowjob's one-line
cause, with flowjob's internal frames hidden unless FLOWJOB_TRACEBACK_FILTERING=off."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.timeouts import scaled

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "flowjob"

MISTAKES = {
    # A shape mismatch inside a job body: raised while the first call traces the body.
    "shape_mismatch": (
        """
        @flow.global_function()
        def add(x: tp.Numpy.Placeholder((3,)), y: tp.Numpy.Placeholder((4,))) -> tp.Numpy:
            return flow.math.add(x, flow.reshape(y, (2, 2)))  # LINE

        add(np.zeros(3, np.float32), np.zeros(4, np.float32))  # CALL
        """,
        "OpError",
    ),
    # A bad argument to a job call: checked before anything runs.
    "bad_argument": (
        """
        @flow.global_function()
        def double(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
            return x * 2

        double(np.zeros((2, 3), np.float32))  # CALL
        """,
        "JobArgumentError",
    ),
    # An error of the user's own handler, raised by the next synchronisation point.
    "handler_error": (
        """
        def handler(y):
            raise KeyError("mine")  # LINE

        @flow.global_function()
        def job(x: tp.Numpy.Placeholder((3,))) -> None:
            flow.watch(x, handler)

        job(np.zeros(3, np.float32))
        flow.sync_default_session()  # CALL
        """,
        "CallbackError",
    ),
}


def _run(tmp_path: Path, body: str, **env: str) -> tuple[str, list[Path]]:
    script = tmp_path / "mistake.py"
    header = "import numpy as np\nimport flowjob as flow\nimport flowjob.typing as tp\n"
    script.write_text(header + textwrap.dedent(body), encoding="utf-8")
    child_env = dict(os.environ, JAX_PLATFORMS="cpu", **env)
    child_env.pop("FLOWJOB_TRACEBACK_FILTERING", None)
    child_env.update(env)
    child_env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p
    )
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=child_env,
        capture_output=True,
        text=True,
        timeout=scaled(120),
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    files = [Path(f) for f in re.findall(r'^\s*File "([^"]+)", line \d+', proc.stderr, re.M)]
    return proc.stderr, files


def _internal(files: list[Path]) -> list[Path]:
    return [f for f in files if f.resolve().is_relative_to(PACKAGE.resolve())]


@pytest.mark.parametrize("name", sorted(MISTAKES))
def test_by_default_the_traceback_shows_the_users_frames_and_the_cause(name, tmp_path):
    body, error = MISTAKES[name]
    stderr, files = _run(tmp_path, body)
    assert not _internal(files), stderr
    script = str(tmp_path / "mistake.py")
    lines = textwrap.dedent(body).splitlines()
    call_line = 3 + next(i for i, line in enumerate(lines, 1) if "# CALL" in line)
    assert f'File "{script}", line {call_line}' in stderr, stderr
    if "# LINE" in body:  # the user's line inside the job body or handler is shown too
        line = 3 + next(i for i, text in enumerate(lines, 1) if "# LINE" in text)
        assert f'File "{script}", line {line}' in stderr, stderr
    last = [line for line in stderr.splitlines() if line.startswith(("flowjob.", "KeyError"))]
    assert any(error in line for line in last), stderr
    assert "FLOWJOB_TRACEBACK_FILTERING=off" in stderr


@pytest.mark.parametrize("name", ["shape_mismatch", "bad_argument"])
def test_the_variable_shows_flowjobs_frames(name, tmp_path):
    stderr, files = _run(tmp_path, MISTAKES[name][0], FLOWJOB_TRACEBACK_FILTERING="off")
    assert _internal(files), stderr
    assert "FLOWJOB_TRACEBACK_FILTERING=off" not in stderr


def test_errors_caught_in_the_program_keep_working_tracebacks(fresh_session):
    """Filtering edits the traceback of the error object; a program catching it still gets a
    traceback that starts in its own frame and formats without error."""
    import traceback

    import numpy as np

    import flowjob.typing as tp

    flow = fresh_session

    @flow.global_function()
    def double(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        return x * 2

    with pytest.raises(flow.JobArgumentError) as info:
        double(np.zeros((2, 3), np.float32))
    text = "".join(traceback.format_exception(info.value))
    assert __file__ in text and "flowjob" + os.sep + "runtime" not in text
