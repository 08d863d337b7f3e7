"""Runtime features: watch (issue 4), async results (issue 5), summaries (issue 6) and
data-parallel scaling on simulated CPU devices (issue 9)."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from . import _harness as H
from ._sections import Section, goal, rate_cells, table


def watch_section(quick: bool) -> Section:
    t0 = time.time()
    rounds = 3 if quick else 20  # the ratios sit close to their goals: more rounds
    variants = {
        "JAX (hand-written), nothing watched": {"engine": "jax", "model": "mlp"},
        "flowjob, nothing watched": {"engine": "flowjob", "model": "mlp"},
        "flowjob, 2 watch + 1 watch_diff": {"engine": "flowjob", "model": "mlp", "watches": True},
    }
    names = list(variants)
    processes = 1 if quick else 2
    workers = H.start_all(H.copies(variants, processes))
    try:
        every = H.paired_rounds(workers, rounds, H.calibrate(workers, 0.5))
    finally:
        closed = H.close_all(workers)
    series = H.pooled(every, names, processes)
    calls = closed[names[2]].get("watch_calls")
    losses = closed[names[2]].get("losses")
    rows = [[k, *rate_cells(s)] for k, s in series.items()]
    vs_jax = H.ratio(series, names[1], names[0])
    watched = H.ratio(series, names[2], names[1])
    md = (
        f"Seed 001's MLP (784-512-10, batch 100, train step), {rounds} rounds"
        + H.processes_note(every, names, processes)
        + ". The watched "
        "job registers `watch(hidden)`, `watch(logits)` and `watch_diff(hidden)`; each "
        "handler takes a `tp.Numpy` (as in seed 001) and reads one element. Handlers ran "
        f"{calls} times for {losses} steps (3 per step expected).\n\n"
        + table(["variant", "steps/s", "range"], rows)
        + f"\n\nnothing watched / JAX: {H.fmt_ratio(vs_jax)}; watched / nothing watched: "
        f"{H.fmt_ratio(watched)}"
    )
    goals = [
        goal("watch: nothing watched / JAX", vs_jax[0], ">=", 0.95),
        goal("watch: 2 watches + 1 watch_diff / nothing watched", watched[0], ">=", 0.95),
        goal("watch: handler calls per step", (calls or 0) / max(losses or 1, 1), ">=", 3),
    ]
    return Section("watch / watch_diff overhead (issue 4)", md, goals, time.time() - t0)


def async_section(quick: bool) -> Section:
    t0 = time.time()
    rounds = 3 if quick else 10
    variants = {
        "blocking (-> tp.Numpy)": {"engine": "flowjob", "model": "mlp", "prep": True},
        "async (-> tp.Callback)": {
            "engine": "flowjob",
            "model": "mlp",
            "prep": True,
            "result": "callback",
        },
    }
    workers = H.start_all(variants)
    try:
        blocking = workers["blocking (-> tp.Numpy)"]
        probe = blocking.ask(cmd="run", n=50)
        step_s = probe["s"] / 50
        unit = blocking.ready["prep_unit_s"]
        reps = max(1, round(step_s / unit))
        for w in workers.values():
            w.ask(cmd="set", prep_reps=reps)
        series = H.paired_rounds(workers, rounds, {k: 200 for k in workers})
    finally:
        H.close_all(workers)
    r = H.ratio(series, "async (-> tp.Callback)", "blocking (-> tp.Numpy)")
    md = (
        "MLP train loop whose host-side batch preparation (normalise, flip, add noise to a "
        f"uint8 batch; {reps} pass(es) of {unit * 1e3:.2f} ms) costs about one step "
        f"({step_s * 1e3:.2f} ms measured with preparation, blocking). Blocking: prepare, "
        "call, wait for the loss. Async: the call returns at once and the loss arrives in "
        f"a callback, so the next batch is prepared while the step runs. {rounds} rounds "
        "of 200 steps.\n\n"
        + table(["loop", "steps/s", "range"], [[k, *rate_cells(s)] for k, s in series.items()])
        + f"\n\nasync / blocking: {H.fmt_ratio(r)}. On this 2-core machine the step's own "
        "XLA threads and the preparation compete for the same two cores (and with other "
        "users of the machine), which bounds the overlap."
    )
    return Section(
        "Async results (issue 5)",
        md,
        [goal("async / blocking loop throughput", r[0], ">=", 1.4)],
        time.time() - t0,
    )


def summary_section(quick: bool) -> Section:
    t0 = time.time()
    code = (
        "import json, sys; from bench.bench_summary import run; "
        f"print('BENCH ' + json.dumps(run({quick!r})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=H.REPO, capture_output=True, text=True, timeout=900
    )
    line = next((ln for ln in out.stdout.splitlines() if ln.startswith("BENCH ")), None)
    if line is None:
        md = f"bench_summary.run failed:\n\n```\n{out.stderr[-2000:]}\n```"
        return Section("Summaries vs torch.utils.tensorboard (issue 6)", md, [], time.time() - t0)
    res = json.loads(line[6:])
    rows, goals = [], []
    targets = {"scalars": 5.0, "histograms": 3.0}
    for name, e in res["workloads"].items():
        ratio = e.get("ratio")
        rows.append(
            [
                name,
                str(res["sizes"][name]),
                f"{e['flowjob_s']:.2f}",
                "–" if e.get("torch_s") is None else f"{e['torch_s']:.2f}",
                "–" if ratio is None else f"{ratio:.1f}×",
            ]
        )
        if name in targets and ratio is not None:
            goals.append(
                goal(
                    f"summary {name}: torch time / flowjob time",
                    ratio,
                    ">=",
                    targets[name],
                    "quick sizes" if quick else "",
                )
            )
    md = (
        "`bench/bench_summary.py` (a colleague's), run once in a subprocess"
        + (" with its quick sizes" if quick else "")
        + ". Times include the logging loop "
        "and `close()`.\n\n"
        + table(["workload", "count", "flowjob s", "torch s", "torch / flowjob"], rows)
    )
    return Section("Summaries vs torch.utils.tensorboard (issue 6)", md, goals, time.time() - t0)


def scaling_section(quick: bool) -> Section:
    t0 = time.time()
    rounds = 2 if quick else 5
    counts = [1, 2] if quick else [1, 2, 4]
    md, goals = [], []
    for model in ["mlp"] if quick else ["mlp", "lenet"]:
        variants = {
            f"{n} device(s)": {"engine": "flowjob", "model": model, "devices": n} for n in counts
        }
        workers = H.start_all(variants)
        try:
            series = H.paired_rounds(workers, rounds, H.calibrate(workers, 0.5))
        finally:
            H.close_all(workers)
        one = f"{counts[0]} device(s)"
        rows = [
            [k, *rate_cells(s, 100), f"{H.ratio(series, k, one)[0]:.2f}×"]
            for k, s in series.items()
        ]
        md += [
            f"\n### {model.upper()}, global batch 100\n",
            table(["placement", "samples/s", "range", "vs 1 device"], rows),
        ]
    text = (
        "Data-parallel train step (`flow.config.cpu_device_num(n)` in a fresh process, "
        '`flow.scope.placement("cpu", "0:0-{n-1}")`, batch split across devices, '
        "gradients all-reduced). **These are simulated devices: XLA host-platform devices "
        "sharing this machine's 2 cores**, so the numbers measure the runtime's overhead "
        "of partitioning and collectives, not real scaling.\n" + "\n".join(md)
    )
    return Section(
        "Data-parallel scaling on simulated CPU devices (issue 9)", text, goals, time.time() - t0
    )
