"""Convolutional networks at batch 8 (issue 17): a ResNet-50 train step and a ResNeXt block
(grouped 3x3 convolution) against the same block with groups=1, each with GFLOP/s against a
matmul measured in the same rounds."""

from __future__ import annotations

import tempfile
import time

from . import _harness as H
from ._resnet import flops
from ._sections import PEAK, PEAK_FLOPS, PEAK_SPEC, Section, gflops_cells, goal, mb, median, table
from ._train import _dump_env

BATCH = 8
BEFORE = {"GROUPED_SPLIT_MAX": 0, "POINTWISE_AS_DOT": False}  # the lowerings before issue 17
NO_KERNELS = {"ENABLED": False}  # XLA's convolutions even where the oneDNN kernels are installed


def _run(variants: dict, rounds: int, tmp: str, profile: str | None):
    """One step per segment for every model variant, the matmul calibrated to ~0.5 s."""
    specs = {k: dict(v, batch=BATCH, warmup=1) for k, v in variants.items()}
    specs[PEAK] = dict(PEAK_SPEC)
    envs = {k: _dump_env(s, tmp, k) for k, s in specs.items()}
    workers = H.start_all(specs, envs, timeout=900)
    try:
        steps = {k: 1 for k in variants}
        steps.update(H.calibrate({PEAK: workers[PEAK]}, 0.5))
        series = H.paired_rounds(workers, rounds, steps)
        rows, split = [], []
        if profile:
            rows = workers[profile].ask(cmd="profile", n=1, grouped=True)["rows"]
            split = workers[profile].ask(cmd="onednn", n=1)["rows"]
    finally:
        closed = H.close_all(workers)
    return series, closed, rows, split


def _rows(series: dict, closed: dict, models: dict) -> list[list[str]]:
    peak = series[PEAK]
    out = []
    for k, s in series.items():
        if k == PEAK:
            continue
        f = flops(models[k], BATCH)
        out.append(
            [
                k,
                f"{1 / s.median:.3g}",
                f"{1 / max(s.rates):.3g}–{1 / min(s.rates):.3g}",
                f"{f / 1e9:.1f}",
                *gflops_cells(s, f, peak),
                mb(closed[k].get("maxrss_mb")),
                *_usage_cells(closed[k]),
            ]
        )
    out.append(
        [
            PEAK,
            f"{1 / peak.median:.3g}",
            "–",
            f"{PEAK_FLOPS / 1e9:.1f}",
            f"{peak.median * PEAK_FLOPS / 1e9:.3g}",
            "100%",
            mb(closed[PEAK].get("maxrss_mb")),
            *_usage_cells(closed[PEAK]),
        ]
    )
    return out


def _usage_cells(closed: dict) -> list[str]:
    """Kernel CPU seconds and thousands of minor page faults per step (timed segments)."""
    if "sys_s_per_step" not in closed:
        return ["–", "–"]
    return [f"{closed['sys_s_per_step']:.2f}", f"{closed['faults_per_step'] / 1e3:.0f}"]


HEADER = [
    "variant",
    "s per step",
    "range",
    "GFLOP per step",
    "GFLOP/s",
    "% of matmul",
    "max RSS MB",
    "kernel CPU s per step",
    "page faults per step (k)",
]
PROFILE_NOTE = (
    "JAX profiler, ms per step summed over XLA's threads; thunks of the same kind, "
    "shape and JAX op summed into one row (×count); last row: all thunks"
)


ONEDNN_NOTE = (
    "oneDNN's verbose mode, one step; ms summed over XLA's threads, each execution timed by "
    "oneDNN. On the CPU the program runs the NCHW net channels-last: the convolution handler "
    "hands oneDNN XLA's NHWC buffers as they lie, and reorders the weights into the blocked "
    "layout oneDNN's kernels pick (a weight gradient back)"
)


def _onednn_table(split: list) -> str:
    total = sum(ms for _, ms, _ in split)
    rows = [[what, f"{ms:.1f}", f"{100 * ms / total:.0f}%", f"{n:.0f}"] for what, ms, n in split]
    rows.append(
        ["all oneDNN primitives", f"{total:.1f}", "100%", f"{sum(r[2] for r in split):.0f}"]
    )
    return table(["primitive", "ms per step", "share", "executions per step"], rows)


def _inside_tables(prof: list, split: list, what: str) -> list[str]:
    """The profile of flowjob's ``what`` step and the time inside its oneDNN calls (each
    left out when it was not taken)."""
    from ._profile import format_rows

    md = []
    if prof:
        md += [
            f"\nWhere flowjob's {what} step spends its time ({PROFILE_NOTE}):\n",
            "| ms | thunks | shape | from |\n|---|---|---|---|\n"
            + format_rows([tuple(r) for r in prof]),
        ]
    if split:
        md += [f"\nInside the oneDNN calls ({ONEDNN_NOTE}):\n", _onednn_table(split)]
    return md


def resnet_section(quick: bool) -> Section:
    t0 = time.time()
    rounds = 1 if quick else 3
    variants = {
        "flowjob": {"engine": "flowjob", "model": "resnet50", "profile": not quick},
        "flowjob, conv lowerings before issue 17": {
            "engine": "flowjob",
            "model": "resnet50",
            "conv": BEFORE,
            "kernels": NO_KERNELS,
        },
        "flowjob, oneDNN convolutions": {
            "engine": "flowjob",
            "model": "resnet50",
            "conv_kernel": "onednn",
        },
        "flowjob, XLA convolutions": {
            "engine": "flowjob",
            "model": "resnet50",
            "kernels": NO_KERNELS,
        },
        "flowjob, glibc's malloc settings": {
            "engine": "flowjob",
            "model": "resnet50",
            "host_malloc": "system",
        },
        "JAX (hand-written, NCHW)": {"engine": "jax", "model": "resnet50"},
        "PyTorch eager": {"engine": "torch", "model": "resnet50"},
    }
    if quick:
        variants.pop("flowjob, conv lowerings before issue 17")
    with tempfile.TemporaryDirectory() as tmp:
        series, closed, prof, split = _run(variants, rounds, tmp, None if quick else "flowjob")
    models = {k: "resnet50" for k in variants}
    r_torch = H.ratio(series, "flowjob", "PyTorch eager")
    r_jax = H.ratio(series, "flowjob", "JAX (hand-written, NCHW)")
    md = [
        f"ResNet-50 (torchvision layout: bias-free convolutions + batch norm in training mode, "
        f"1000 classes), batch {BATCH} of 3×224×224, SGD, loss fetched every step; one step "
        f"per segment, {rounds} round(s), median and range over rounds. GFLOP as in the "
        "train table (convolutions and the dense layer, ×3 for the two gradients).\n",
        table(HEADER, _rows(series, closed, models)),
        f"\nflowjob / PyTorch: {H.fmt_ratio(r_torch)}; flowjob / JAX (hand-written): "
        f"{H.fmt_ratio(r_jax)}",
    ]
    if "flowjob, XLA convolutions" in series:
        onednn = H.ratio(series, "flowjob", "flowjob, XLA convolutions")
        md.append(f"; flowjob / flowjob with XLA's convolutions: {H.fmt_ratio(onednn)}")
    if "flowjob, oneDNN convolutions" in series:
        forced = H.ratio(series, "flowjob", "flowjob, oneDNN convolutions")
        md.append(f"; flowjob / flowjob with every convolution on oneDNN: {H.fmt_ratio(forced)}")
    if "flowjob, glibc's malloc settings" in series:
        kept = H.ratio(series, "flowjob", "flowjob, glibc's malloc settings")
        md.append(
            "; flowjob (host memory kept, the default for a first job this large: the step's "
            "buffers are not faulted in again every step) / flowjob with glibc's malloc "
            f"settings (`FLOWJOB_HOST_MALLOC=system`): {H.fmt_ratio(kept)}"
        )
    if "flowjob, conv lowerings before issue 17" in series:
        gain = H.ratio(series, "flowjob", "flowjob, conv lowerings before issue 17")
        md.append(f"; flowjob / flowjob with the lowerings before issue 17: {H.fmt_ratio(gain)}")
    md += _inside_tables(prof, split, "ResNet-50")
    goals = [
        goal(
            "ResNet-50 train step flowjob / PyTorch",
            r_torch[0],
            ">=",
            1.0,
            "issue 35 (batch 8, on each CPU kind)",
        ),
        goal("ResNet-50 train step flowjob / JAX", r_jax[0], ">=", 0.95),
    ]
    return Section(
        "ResNet-50 train step, batch 8 (issue 17)", "\n".join(md), goals, time.time() - t0
    )


def grouped_section(quick: bool) -> Section:
    t0 = time.time()
    rounds = 2 if quick else 4
    variants = {
        "flowjob, groups=32": {"engine": "flowjob", "model": "block_g32", "profile": not quick},
        "flowjob, groups=1": {"engine": "flowjob", "model": "block_g1"},
        "flowjob, groups=32, lowerings before issue 17": {
            "engine": "flowjob",
            "model": "block_g32",
            "conv": BEFORE,
            "kernels": NO_KERNELS,
        },
        "flowjob, groups=1, lowerings before issue 17": {
            "engine": "flowjob",
            "model": "block_g1",
            "conv": BEFORE,
            "kernels": NO_KERNELS,
        },
        "PyTorch eager, groups=32": {"engine": "torch", "model": "block_g32"},
        "PyTorch eager, groups=1": {"engine": "torch", "model": "block_g1"},
    }
    if quick:
        variants.pop("flowjob, groups=1, lowerings before issue 17")
    models = {k: v["model"] for k, v in variants.items()}
    with tempfile.TemporaryDirectory() as tmp:
        series, closed, prof, split = _run(
            variants, rounds, tmp, None if quick else "flowjob, groups=32"
        )

    def per_flop(a: str, b: str) -> tuple[float, float, float]:
        fa, fb = flops(models[a], BATCH), flops(models[b], BATCH)
        values = [x * fa / (y * fb) for x, y in zip(series[a].rates, series[b].rates)]
        return median(values), min(values), max(values)

    ours = per_flop("flowjob, groups=32", "flowjob, groups=1")
    torch = per_flop("PyTorch eager, groups=32", "PyTorch eager, groups=1")
    before = H.ratio(series, "flowjob, groups=32", "flowjob, groups=32, lowerings before issue 17")
    md = [
        "ResNeXt-50 (32×4d)'s third-stage bottleneck block (1×1 512→256, grouped 3×3 256→256 "
        "with 32 groups, 1×1 256→512, batch norm, ReLU, identity shortcut) on 512×28×28 "
        f"inputs, batch {BATCH}, then global average pooling and a 10-class dense layer; "
        "the same block with groups=1 does 3× the FLOPs. "
        f"One step per segment, {rounds} rounds.\n",
        table(HEADER, _rows(series, closed, models)),
        f"\nGFLOP/s of groups=32 / groups=1: flowjob {H.fmt_ratio(ours)}, PyTorch "
        f"{H.fmt_ratio(torch)}; flowjob groups=32 step / the same with the lowerings before "
        f"issue 17: {H.fmt_ratio(before)} faster",
    ]
    md += _inside_tables(prof, split, "groups=32")
    goals = [
        goal(
            "grouped block: GFLOP/s groups=32 / groups=1 (flowjob)",
            ours[0],
            ">=",
            round(torch[0], 3),  # issue 35: at least PyTorch's own ratio, measured beside it
            "issue 35: PyTorch's groups=32 / groups=1 in the same rounds",
        )
    ]
    return Section(
        "Grouped convolution: ResNeXt block vs groups=1 (issue 17)",
        "\n".join(md),
        goals,
        time.time() - t0,
    )
