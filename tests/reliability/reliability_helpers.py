"""Helpers of the reliability tests: child processes and TensorBoard's own readers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.timeouts import scaled

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CHILD = HERE / "_child.py"


def child_env(**extra: str) -> dict[str, str]:
    """Environment of a child process that imports this checkout's flowjob on the CPU."""
    env = dict(
        os.environ,
        PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        JAX_PLATFORMS="cpu",
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


def start_child(scenario: str, *args: object, **popen) -> subprocess.Popen:
    """Starts ``_child.py SCENARIO ARGS...`` with stdout/stderr piped (text mode)."""
    popen.setdefault("stdout", subprocess.PIPE)
    popen.setdefault("stderr", subprocess.PIPE)
    return subprocess.Popen(
        [sys.executable, str(CHILD), scenario, *map(str, args)],
        env=popen.pop("env", child_env()),
        text=True,
        **popen,
    )


def run_child(scenario: str, *args: object, timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs a child scenario to completion; fails the test with its output if it fails."""
    proc = start_child(scenario, *args)
    try:
        out, err = proc.communicate(timeout=scaled(timeout))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, f"child {scenario} exited {proc.returncode}:\n{out}\n{err}"
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def run_doctor(
    *args: object, timeout: float = 120, cache_env: str | None = None
) -> subprocess.CompletedProcess:
    """``python -m flowjob doctor ARGS...`` in a fresh process (the real command line);
    ``cache_env``: the child's ``FLOWJOB_CACHE_DIR`` (``None``: as inherited)."""
    env = child_env()
    if cache_env is not None:
        env["FLOWJOB_CACHE_DIR"] = cache_env
    return subprocess.run(
        [sys.executable, "-m", "flowjob", "doctor", *map(str, args)],
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(timeout),
        cwd=str(REPO),
    )


def event_files(logdir: os.PathLike | str) -> list[Path]:
    return sorted(p for p in Path(logdir).rglob("*") if "tfevents" in p.name)


def tb_events(path: os.PathLike | str) -> list:
    """Every event TensorBoard's Python loader reads from one event file (it stops at a torn
    or corrupt record, as the TensorBoard server does)."""
    from tensorboard.backend.event_processing import event_file_loader

    return list(event_file_loader.EventFileLoader(str(path)).Load())


def tb_accumulator(run_dir: os.PathLike | str):
    """An ``EventAccumulator`` over ``run_dir`` that keeps every value (size guidance 0)."""
    from tensorboard.backend.event_processing import event_accumulator

    acc = event_accumulator.EventAccumulator(
        str(run_dir),
        size_guidance={
            k: 0
            for k in (
                event_accumulator.SCALARS,
                event_accumulator.IMAGES,
                event_accumulator.HISTOGRAMS,
                event_accumulator.TENSORS,
                event_accumulator.COMPRESSED_HISTOGRAMS,
                event_accumulator.AUDIO,
            )
        },
    )
    acc.Reload()
    return acc


def tb_scalars(path: os.PathLike | str) -> dict[str, list[tuple[int, float]]]:
    """``{tag: [(step, value), ...]}`` of the scalars in one event file, as TensorBoard reads
    them (its loader migrates ``simple_value`` to a scalar tensor)."""
    from tensorboard.util import tensor_util

    out: dict[str, list[tuple[int, float]]] = {}
    for event in tb_events(path):
        for value in event.summary.value:
            if value.WhichOneof("value") == "simple_value":
                out.setdefault(value.tag, []).append((event.step, value.simple_value))
            elif value.metadata.plugin_data.plugin_name == "scalars":
                scalar = float(tensor_util.make_ndarray(value.tensor))
                out.setdefault(value.tag, []).append((event.step, scalar))
    return out
