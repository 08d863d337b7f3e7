"""The multi-process section: flowjob's step against the same step in plain JAX, both across 2
local processes (``jax.distributed``), measured side by side in the same processes."""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import time

from ._harness import REPO
from ._sections import Section, goal, table


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _run(rounds: int, steps: int, devices: int) -> dict[str, list[list[float]]]:
    port = _free_port()
    procs = []
    for rank in range(2):
        env = dict(
            os.environ,
            FLOWJOB_CACHE_DIR="",
            FLOWJOB_COORDINATOR=f"127.0.0.1:{port}",
            FLOWJOB_NUM_PROCESSES="2",
            FLOWJOB_PROCESS_ID=str(rank),
        )
        env.pop("JAX_NUM_CPU_DEVICES", None)
        procs.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "bench._multiproc_worker",
                    str(rounds),
                    str(steps),
                    str(devices),
                ],
                cwd=REPO,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )  # fmt: skip
        )
    outputs = []
    try:
        for proc in procs:
            out, err = proc.communicate(timeout=900)
            if proc.returncode:
                raise RuntimeError(f"multi-process worker failed: {err[-2000:]}")
            outputs.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for proc in procs:
            proc.kill()
    return outputs[0]  # rank 0's clock


def multiprocess_section(quick: bool) -> Section:
    t0 = time.time()
    # Short segments, many rounds: the two engines see the same load (the machine is shared)
    rounds, steps = (16, 25) if quick else (40, 25)
    rows, goals = [], []
    for devices in (1, 2):
        times = _run(rounds, steps, devices)
        # A step's median within a segment ignores the steps another program's burst slowed
        medians = {k: [statistics.median(s) for s in v] for k, v in times.items()}
        ratios = [f / j for f, j in zip(medians["flowjob"], medians["jax"])]
        ratio = statistics.median(ratios)
        rows.append(
            [
                f"2 processes × {devices} device(s)",
                f"{statistics.median(medians['jax']) * 1e3:.2f}",
                f"{statistics.median(medians['flowjob']) * 1e3:.2f}",
                f"{ratio:.2f}× ({min(ratios):.2f}–{max(ratios):.2f})",
            ]
        )
        goals.append(
            goal(f"multi-process step, 2 × {devices} device(s), flowjob / JAX", ratio, "<=", 1.1)
        )
    text = (
        "A small MLP train step (batch 64, 32 → 64 → 10, plain SGD) across 2 local processes "
        "started like `flowjob launch --nproc 2`: flowjob's train job called with NumPy "
        "arrays (`-> tp.Numpy`) against the same step in plain JAX on the same mesh (state "
        "replicated and donated, batch split with `make_array_from_callback`, loss fetched). "
        f"Both run in the same two processes, {rounds} rounds of {steps} steps each in "
        "alternating order; each segment's time is the median of its steps' times (steps "
        "that another program on the shared machine delayed do not count); ratio = median "
        "over rounds of flowjob's / JAX's, range in brackets.\n\n"
        + table(["placement", "plain JAX ms/step", "flowjob ms/step", "flowjob / JAX"], rows)
    )
    return Section("Multi-process step overhead (issue 34)", text, goals, time.time() - t0)
