"""Convolution on CPU: LeNet train-step layouts side by side, and XLA:CPU options.

Layouts are the hand-written prototypes of ``_lenet_jax`` (same function, same numbers; only
the internal layout and the lowering of pooling / the weight gradient differ). For each XLA
flag a fresh process first compiles the step and compares the optimized HLO with the default
one; only flags that change the compiled program are timed.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import time

from . import _harness as H
from ._sections import Section, rate_cells, table

LAYOUT_NOTES = {
    "nchw_rw": "NCHW convs, `reduce_window` max pool (plain translation)",
    "nchw_blk": "NCHW convs, reshape + max pool",
    "nhwc_blk": "NHWC convs (one transpose at the input), reshape + max pool",
    "nchw_chunk": "NCHW convs, weight gradient summed over batch pieces of 10",
    "perop_chunk": "per-op NCHW <-> NHWC transposes (what op lowerings produce), pieces of 10",
    "nhwc_chunk": "NHWC convs + reshape-max pool + weight gradient in pieces of 10",
}
FLAGS = [
    "--xla_cpu_experimental_ynn_fusion_type=dot,eltwise,reduce",
    "--xla_cpu_use_xnnpack=true",
    "--xla_cpu_experimental_xnn_graph_fusion_mode=XNN_GRAPH_FUSION_MODE_GREEDY",
    "--xla_cpu_use_onednn=true",
    "--xla_cpu_experimental_onednn_custom_call=true",
    "--xla_cpu_multi_thread_eigen=false",
    "--xla_cpu_use_thunk_runtime=false",
]
_HLO_CODE = """
import hashlib, sys, numpy as np, jax, jax.numpy as jnp
sys.path.insert(0, {repo!r})
from bench import _lenet_jax, _models
p = {{k: jnp.asarray(v) for k, v in _models.numpy_params("lenet").items()}}
x, y = _models.batches(100)[0]
text = _lenet_jax.make_train_step({layout!r}).lower(p, x, y, np.uint32(0)).compile().as_text()
body = text[text.index("ENTRY"):] if "ENTRY" in text else text
print("HLO", hashlib.sha1("".join(l.split(", metadata=")[0] for l in body.splitlines())
      .encode()).hexdigest(), body.count("__ynn_fusion"), body.count("custom-call"))
"""


def _hlo_signature(layout: str, flags: str) -> tuple[str, str] | None:
    env = dict(__import__("os").environ, XLA_FLAGS=flags)
    out = subprocess.run(
        [sys.executable, "-c", _HLO_CODE.format(repo=H.REPO, layout=layout)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    line = next((ln for ln in out.stdout.splitlines() if ln.startswith("HLO ")), None)
    if line is None:
        err = (out.stderr.strip().splitlines() or ["failed"])[-1]
        return None, err[:160]
    _, digest, ynn, custom = line.split()
    return digest, f"{ynn} YNN fusions, {custom} custom calls"


def conv_section(quick: bool) -> Section:
    t0 = time.time()
    rounds = 2 if quick else 6
    layouts = ["nchw_rw", "nhwc_chunk"] if quick else list(LAYOUT_NOTES)
    variants = {lay: {"engine": "jax", "model": "lenet", "layout": lay} for lay in layouts}
    variants["PyTorch eager"] = {"engine": "torch", "model": "lenet"}
    workers = H.start_all(variants)
    try:
        series = H.paired_rounds(workers, rounds, {k: 3 for k in workers})
    finally:
        closed = H.close_all(workers)
    losses = {closed[k].get("last_loss") for k in layouts}
    rows = [
        [
            f"`{k}`",
            LAYOUT_NOTES.get(k, "oneDNN (reference)"),
            *rate_cells(s),
            f"{H.ratio(series, k, 'nchw_rw')[0]:.2f}×",
            f"{H.ratio(series, k, 'PyTorch eager')[0]:.2f}×",
        ]
        for k, s in series.items()
    ]
    md = [
        f"LeNet train step (batch 100) in hand-written JAX, {rounds} rounds, 3 steps per "
        "segment. All JAX variants compute the same function: their last losses are "
        f"{'identical' if len(losses) == 1 else 'different: ' + str(losses)}. PyTorch is "
        "the most load-sensitive row (see the notes); compare it with the train table.\n",
        table(["layout", "what", "steps/s", "range", "vs NCHW plain", "vs PyTorch"], rows),
    ]
    if not quick:
        md.append(_ablation_table(rounds))
        md.append(_flags_table(rounds))
    return Section(
        "Convolution on CPU: layouts and XLA options (issue 8)", "\n".join(md), [], time.time() - t0
    )


ABLATIONS = {
    "as shipped: NCHW, weight gradient in pieces": {},
    "+ NHWC convolutions inside the conv lowering": {"INTERNAL_LAYOUT": "NHWC"},
    "+ NHWC convolutions and pooling": {"INTERNAL_LAYOUT": "NHWC", "POOL_INTERNAL_LAYOUT": "NHWC"},
    "weight gradient in one piece (before issue 8)": {"WGRAD_CHUNK": 0},
}


def _ablation_table(rounds: int) -> str:
    variants = {k: {"engine": "flowjob", "model": "lenet", "conv": v} for k, v in ABLATIONS.items()}
    workers = H.start_all(variants)
    try:
        series = H.paired_rounds(workers, rounds, {k: 3 for k in workers})
    finally:
        H.close_all(workers)
    first = next(iter(ABLATIONS))
    rows = [[k, *rate_cells(s), H.fmt_ratio(H.ratio(series, k, first))] for k, s in series.items()]
    return (
        "\nThe same choices in flowjob's own LeNet job (`flowjob._src.ops._conv` switches set "
        "by the benchmark worker; op lowerings can only transpose per op, like "
        "`perop_chunk`):\n\n" + table(["flowjob LeNet", "steps/s", "range", "vs as shipped"], rows)
    )


def _flags_table(rounds: int) -> str:
    base, base_note = _hlo_signature("nhwc_chunk", "")
    rows, changed = [], {}
    for flag in FLAGS:
        digest, note = _hlo_signature("nhwc_chunk", flag)
        if digest is None:
            rows.append([f"`{flag}`", f"rejected or failed: {note}", "–"])
        elif digest == base:
            rows.append([f"`{flag}`", f"compiled program unchanged ({note})", "–"])
        else:
            rows.append([f"`{flag}`", f"program changes ({note}; default: {base_note})", ""])
            changed[flag] = len(rows) - 1
    if changed:
        variants = {"default": {"engine": "jax", "model": "lenet", "layout": "nhwc_chunk"}}
        envs = {}
        for flag in changed:
            variants[flag] = dict(variants["default"])
            envs[flag] = {"XLA_FLAGS": flag}
        workers = H.start_all(variants, envs)
        try:
            series = H.paired_rounds(workers, rounds, {k: 3 for k in workers})
        finally:
            H.close_all(workers)
        for flag, i in changed.items():
            r = H.ratio(series, flag, "default")
            rows[i][2] = f"{H.fmt_ratio(r)} vs default"
    digest = hashlib.sha1(base.encode()).hexdigest()[:8] if base else "?"
    return (
        "\nXLA:CPU flags present in this jaxlib, applied to the best layout "
        f"(`nhwc_chunk`; default program {digest}, {base_note}). Only flags that change "
        "the compiled program are timed (`--xla_cpu_multi_thread_eigen=false` acts at run "
        "time only: it takes XLA's intra-op threads away):\n\n"
        + table(["XLA_FLAGS", "effect on the compiled program", "throughput"], rows)
    )
