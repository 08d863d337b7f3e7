"""Every flowjob command answers a command-line mistake (a misspelt flag, a missing argument,
a path that does not exist) with one line on stderr and exit status 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.timeouts import scaled

REPO = Path(__file__).resolve().parents[2]

MISTAKES = [
    (["nosuch"], "flowjob: error: argument COMMAND: invalid choice: 'nosuch'"),
    (["run", "missing.py"], "flowjob run: can't open file 'missing.py'"),
    (["run"], "flowjob run: error: the following arguments are required: script"),
    (["board", "--prot", "6006", "."], "flowjob board: error: unrecognized arguments: --prot"),
    (["board", "--port", "99999", "."], "flowjob board: error: --port must be in 0..65535"),
    (["doctor", "--bogus"], "flowjob doctor: error: unrecognized arguments: --bogus"),
    (["ofrecord", "images", "missing", "out"], "flowjob ofrecord images: error: image folder"),
    (["ofrecord", "npz", "missing.npz", "out"], "flowjob ofrecord npz: error: npz file"),
    (["ofrecord", "images"], "flowjob ofrecord images: error: the following arguments"),
    (
        ["ofrecord", "inspect", ".", "--all"],
        "flowjob ofrecord inspect: error: unrecognized arguments",
    ),
    (["export", "missing.py", "--onnx", "m.onnx"], "flowjob export: error: program missing.py"),
    (["export", "--onnx"], "flowjob export: error: argument --onnx: expected one argument"),
]


@pytest.mark.parametrize("argv,first", MISTAKES, ids=[" ".join(a) for a, _ in MISTAKES])
def test_a_mistake_is_one_line_and_status_2(argv, first, tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", "import sys, flowjob_cli; sys.exit(flowjob_cli.main())", *argv],
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=str(REPO), JAX_PLATFORMS="cpu"),
        capture_output=True,
        text=True,
        timeout=scaled(120),
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(first), proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
