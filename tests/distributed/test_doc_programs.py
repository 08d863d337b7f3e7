"""OneFlow v0.4's documentation chapter on parallelism, run unchanged through ``flowjob run`` on
this CPU-only machine with default settings: ``flow.config.gpu_device_num(2)`` gives 2 virtual
CPU devices and training starts (the losses printed fall); the 2-machine program
``distributed_train.py`` stops with a ConfigError naming its hosts instead of training alone.

The programs are read from a clone of OneFlow's documentation (``FLOWJOB_DOCS_SRC``, tag
v0.4.0); without one these tests skip. Each program trains 50 epochs, so a test stops it once
it has printed ``LOSSES`` losses (20 steps apart).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.subprocess_env import cpu_child_env
from tests.timeouts import scaled
from tests.upstream import DOCS, UpstreamError, extract

REPO = Path(__file__).resolve().parents[2]
LOSSES = 2  # mirrored_strategy.py runs one epoch of the bundled 4000 images: 2 prints
PARALLEL = (
    "consistent_strategy.py",
    "mirrored_strategy.py",
    "hybrid_parallelism_lenet.py",
    "hybrid_parallelism_mlp.py",
    "mixed_parallel_lenet.py",
    "mixed_parallel_mlp.py",
)


@pytest.fixture(scope="module")
def code() -> Path:
    if DOCS.clone() is None:
        pytest.skip(DOCS.missing_line())
    try:
        return extract(DOCS, "en/docs/code") / "en" / "docs" / "code"
    except UpstreamError as exc:
        pytest.fail(str(exc))


def _start(program: Path, cwd: Path) -> subprocess.Popen:
    env = cpu_child_env()
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return subprocess.Popen(
        [sys.executable, "-m", "flowjob", "run", str(program)],
        cwd=cwd,  # no mnist.npz here: flow.data.load_mnist uses its bundled subset
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.parametrize("name", PARALLEL)
def test_parallel_program_trains_on_two_virtual_devices(name, code, tmp_path):
    proc = _start(code / "extended_topics" / name, tmp_path)
    losses = []
    try:
        for line in proc.stdout:
            try:
                losses.append(float(line))
            except ValueError:
                continue
            if len(losses) == LOSSES:
                break
    finally:
        proc.kill()
        _, err = proc.communicate(timeout=scaled(60))
    assert len(losses) == LOSSES, err[-3000:]
    assert all(math.isfinite(v) for v in losses)
    assert losses[-1] < losses[0]  # it trains
    assert "gpu_device_num is equivalent to flow.config.cpu_device_num" in err


def test_two_machine_program_refuses_to_train_alone(code, tmp_path):
    proc = _start(code / "basics_topics" / "distributed_train.py", tmp_path)
    out, err = proc.communicate(timeout=scaled(300))
    assert proc.returncode != 0
    assert not [line for line in out.splitlines() if line.replace(".", "").isdigit()]
    assert "ConfigError" in err and "192.168.1.12" in err and "192.168.1.11" in err


def test_two_machine_program_trains_under_flowjob_launch(code, tmp_path):
    """``flowjob launch --nproc 2`` runs the 2-machine program unchanged as two local
    processes (the launcher's variables override its machine list): both ranks print the
    same falling losses."""
    env = cpu_child_env()
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    program = code / "basics_topics" / "distributed_train.py"
    proc = subprocess.run(
        [sys.executable, "-m", "flowjob", "launch", "--nproc", "2", str(program)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    losses = {0: [], 1: []}
    for line in proc.stdout.splitlines():
        rank, _, text = line.partition("] ")
        if rank in ("[rank 0", "[rank 1") and text.replace(".", "").isdigit():
            losses[int(rank[-1])].append(float(text))
    assert len(losses[0]) == 2 and losses[0] == losses[1], proc.stdout[-3000:]
    assert losses[0][1] < losses[0][0]
