"""OneFlow's eager mode: MLP and LeNet train steps run op by op, against PyTorch eager and
the same job compiled lazily (issue 35's goal: at most 2x PyTorch's step time)."""

from __future__ import annotations

import time

from . import _harness as H
from ._sections import Section, goal, rate_cells, table

BATCH = 100


def eager_section(quick: bool) -> Section:
    t0 = time.time()
    rounds = 3 if quick else 6
    rows, goals, notes = [], [], []
    for model in ("mlp", "lenet"):
        variants = {
            "flowjob eager": {"engine": "flowjob", "model": model, "eager": True, "warmup": 3},
            "flowjob lazy": {"engine": "flowjob", "model": model},
            "PyTorch eager": {"engine": "torch", "model": model},
        }
        workers = H.start_all(variants)
        try:
            steps = H.calibrate(workers, 1.0 if quick else 2.0)
            series = H.paired_rounds(workers, rounds, steps)
        finally:
            H.close_all(workers)
        for name, s in series.items():
            ms = 1e3 / s.median
            rows.append([model.upper(), name, f"{ms:.3g}", *rate_cells(s)])
        vs_torch = H.ratio(series, "PyTorch eager", "flowjob eager")  # step-time ratio
        vs_lazy = H.ratio(series, "flowjob lazy", "flowjob eager")
        notes.append(
            f"{model.upper()}: eager step time / PyTorch's {H.fmt_ratio(vs_torch)}, "
            f"/ the lazy job's {H.fmt_ratio(vs_lazy)}"
        )
        goals.append(
            goal(f"{model.upper()} eager train step time / PyTorch eager", vs_torch[0], "<=", 2.0)
        )
    md = [
        f"Train step (forward, backward, SGD, batch {BATCH}, loss fetched every step) with "
        "`flow.enable_eager_execution(True)`: the body runs on every call and records its "
        "graph; from the second call with the same graph, the gradients and the update are one "
        "compiled step for that graph (runtime/_eager_programs.py), and the body's ops run "
        "only when a value is read. A graph seen once runs op by op, each op's lowering a "
        "cached `jax.jit` kernel (runtime/_eager_kernels.py), then replays under "
        f"`jax.value_and_grad`. {rounds} rounds of alternating segments.\n",
        table(["model", "variant", "ms per step", "steps/s", "range"], rows),
        "",
        "; ".join(notes),
    ]
    return Section("Eager mode (issue 35)", "\n".join(md), goals, time.time() - t0)
