"""The same train steps on a GPU: flowjob, hand-written JAX and PyTorch eager on one device
(issue 36). Skipped, with the reason, where JAX sees no GPU; every figure names the device."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time

from . import _harness as H
from ._sections import Section, goal, rate_cells, table

# model -> batch (ResNet-50 at OneFlow-Benchmark's per-GPU batch of 64)
MODELS = {"mlp": 100, "lenet": 100, "resnet50": 64}


def gpu_name() -> str | None:
    """The first GPU JAX sees (asked in a child process: this one stays CPU-only), or None."""
    if not shutil.which("nvidia-smi"):
        return None
    code = "import jax; d = jax.devices('gpu'); print(d[0].device_kind if d else '')"
    try:
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=300
        )
    except subprocess.TimeoutExpired:
        return None
    name = out.stdout.strip().splitlines()[-1:] if out.returncode == 0 else []
    return name[0] if name and name[0] else None


def gpu_section(quick: bool) -> Section:
    t0 = time.time()
    device = gpu_name()
    if device is None:
        return Section(
            "GPU train steps (issue 36)",
            "**skipped**: JAX sees no GPU on this machine (`nvidia-smi` absent or JAX without "
            'its CUDA wheels: `pip install -e ".[gpu]"`); no GPU figure was taken.',
            [],
            time.time() - t0,
        )
    rounds = 3 if quick else 6
    rows, goals, notes = [], [], []
    for model, batch in MODELS.items():
        variants = {
            "flowjob": {"engine": "flowjob", "model": model, "batch": batch, "device": "gpu"},
            "JAX (hand-written)": {"engine": "jax", "model": model, "batch": batch},
            "PyTorch eager": {"engine": "torch", "model": model, "batch": batch},
        }
        for spec in variants.values():
            spec["device"] = "gpu"
        workers = H.start_all(variants)
        try:
            steps = H.calibrate(workers, 1.0)
            series = H.paired_rounds(workers, rounds, steps)
        finally:
            H.close_all(workers)
        for name, s in series.items():
            rows.append([model, str(batch), name, device, *rate_cells(s, batch)])
        r_jax = H.ratio(series, "flowjob", "JAX (hand-written)")
        r_torch = H.ratio(series, "flowjob", "PyTorch eager")
        notes.append(
            f"{model} on {device}: flowjob / JAX {H.fmt_ratio(r_jax)}, "
            f"flowjob / PyTorch {H.fmt_ratio(r_torch)}"
        )
        goals.append(goal(f"GPU ({device}) {model} flowjob / JAX", r_jax[0], ">=", 0.95))
    md = [
        f"Train steps on one GPU ({device}), samples/s, {rounds} rounds of alternating "
        'segments; flowjob\'s jobs placed on "gpu", JAX on its default (GPU) device, PyTorch '
        "on `cuda`. BERT-base is not in this table yet (no BERT model in bench/).\n",
        table(["model", "batch", "variant", "device", "samples/s", "range"], rows),
        "",
        "; ".join(notes),
    ]
    return Section("GPU train steps (issue 36)", "\n".join(md), goals, time.time() - t0)


if __name__ == "__main__":  # python -m bench._gpu: is a GPU there?
    print(json.dumps({"gpu": gpu_name()}))
