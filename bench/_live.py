"""The live board's cost (issue 32): ``flowjob board``'s CPU with a page open on 20 runs x 10
tags reloading every 2 s, and what ``flow.summary.watch_model`` costs the steps that do not
log (an MLP train step with and without it, alternating rounds in one process)."""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from ._harness import REPO
from ._sections import Section, goal, table

RUNS, TAGS, POINTS = 20, 10, 200


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _browser_missing() -> str | None:
    """Why the page cannot be opened here (None: it can): Playwright drives Debian's
    chromium, never a browser of its own download."""
    try:
        import playwright  # noqa: F401
    except ImportError:
        return 'Playwright is not installed (`pip install -e ".[bench]"`)'
    if not os.path.exists(CHROMIUM):
        return f"{CHROMIUM} is missing (Debian's chromium: `apt-get install chromium`)"
    return None


def _write_logs(logdir: str) -> None:
    sys.path.insert(0, str(REPO))
    from flowjob.summary import SummaryWriter

    for r in range(RUNS):
        with SummaryWriter(os.path.join(logdir, f"run{r:02d}")) as w:
            for step in range(POINTS):
                for t in range(TAGS):
                    w.scalar(f"group{t % 2}/tag{t}", 1.0 / (step + 1 + r + t), step)


CHROMIUM = "/usr/bin/chromium"


def board_section(quick: bool) -> Section:
    t0 = time.time()
    seconds = 20.0 if quick else 60.0
    title = "Live board: CPU of `flowjob board` with an open page (issue 32)"
    missing = _browser_missing()
    if missing:
        return Section(title, f"**skipped**: {missing}; no figure was taken.", [], 0.0)
    tmp = tempfile.mkdtemp(prefix="bench-board-")
    board = None
    try:
        _write_logs(os.path.join(tmp, "logs"))
        env = dict(os.environ, PYTHONPATH=str(REPO), JAX_PLATFORMS="cpu")
        log = open(os.path.join(tmp, "board.log"), "w")  # noqa: SIM115
        board = subprocess.Popen(
            [sys.executable, "-m", "flowjob", "board", "logs", "--port", "0"],
            cwd=tmp,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        url, deadline = None, time.monotonic() + 180
        while url is None and time.monotonic() < deadline:
            found = re.search(r" at (http://\S+/)", open(log.name).read())
            url = found and found.group(1)
            time.sleep(0.25)
        if url is None:
            return Section(title, "**failed**: the board did not start", [], time.time() - t0)
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=CHROMIUM,
                args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic"],
            )
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            requests: list[int] = []
            page.on("request", lambda r: requests.append(1) if "/data/" in r.url else None)
            page.goto(url)
            page.wait_for_selector("text=group0/tag0", timeout=120_000)
            page.wait_for_timeout(10_000)  # every run loaded, the page settled
            before, n0, start = _cpu_seconds(board.pid), len(requests), time.monotonic()
            page.wait_for_timeout(seconds * 1000)
            used = _cpu_seconds(board.pid) - before
            elapsed = time.monotonic() - start
            count = len(requests) - n0
            browser.close()
        share = 100.0 * used / elapsed
        md = (
            f"{RUNS} runs x {TAGS} scalar tags x {POINTS} points, nothing new being written; "
            "`flowjob board` (defaults: page reload every 2 s, logs re-read every 1 s) with "
            "the Time Series page open in headless Chromium; the board's own CPU time "
            "(/proc, user + system) over the window.\n\n"
            + table(
                ["window s", "board CPU s", "% of one core", "data requests / s"],
                [[f"{elapsed:.0f}", f"{used:.2f}", f"{share:.1f}", f"{count / elapsed:.1f}"]],
            )
        )
        return Section(
            title,
            md,
            [goal("board CPU at idle with a live page, % of one core", share, "<=", 10.0)],
            time.time() - t0,
        )
    finally:
        if board is not None:
            board.terminate()
            board.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)


_WATCH = """
import json, sys, time
import numpy as np
import flowjob as flow
import flowjob.typing as tp

B, D, H, C = 64, 784, 256, 10
rounds, calls = int(sys.argv[1]), int(sys.argv[2])

def body(name, x, y, every):
    flow.summary.create_summary_writer(sys.argv[3])  # all three: the same host op
    h = flow.layers.dense(x, H, activation=flow.math.relu, name=name + "_h")
    logits = flow.layers.dense(h, C, name=name + "_o")
    loss = flow.nn.sparse_softmax_cross_entropy_with_logits(y, logits)
    flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.01])).minimize(loss)
    if every:
        flow.summary.watch_model(every_n_steps=every)

@flow.global_function(type="train")
def plain(x: tp.Numpy.Placeholder((B, D)), y: tp.Numpy.Placeholder((B,), dtype=flow.int32)):
    body("plain", x, y, 0)

@flow.global_function(type="train")
def watched(x: tp.Numpy.Placeholder((B, D)), y: tp.Numpy.Placeholder((B,), dtype=flow.int32)):
    body("watched", x, y, 100)

@flow.global_function(type="train")
def unlogged(x: tp.Numpy.Placeholder((B, D)), y: tp.Numpy.Placeholder((B,), dtype=flow.int32)):
    body("unlogged", x, y, 10**9)  # logs at step 0 only: what the other steps pay

x = np.random.default_rng(0).normal(size=(B, D)).astype(np.float32)
y = np.zeros((B,), np.int32)
jobs = (("plain", plain), ("watched", watched), ("unlogged", unlogged))
for _, job in jobs:
    for _ in range(3):
        job(x, y)
    flow.sync_default_session()
times = {name: [] for name, _ in jobs}
for r in range(rounds):
    for name, job in jobs[r % 3 :] + jobs[: r % 3]:
        t = time.perf_counter()
        for _ in range(calls):
            job(x, y)
        flow.sync_default_session()
        times[name].append((time.perf_counter() - t) / calls)
print("BENCH " + json.dumps(times))
"""


def watch_model_section(quick: bool) -> Section:
    t0 = time.time()
    title = "watch_model: the MLP step with and without it (issue 32)"
    rounds, calls = (6, 200) if quick else (16, 300)
    tmp = tempfile.mkdtemp(prefix="bench-watch-")
    try:
        out = subprocess.run(
            [sys.executable, "-c", _WATCH, str(rounds), str(calls), os.path.join(tmp, "logs")],
            cwd=REPO,
            env=dict(os.environ, PYTHONPATH=str(REPO), JAX_PLATFORMS="cpu"),
            capture_output=True,
            text=True,
            timeout=1200,
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    line = next((ln for ln in out.stdout.splitlines() if ln.startswith("BENCH ")), None)
    if line is None:
        return Section(title, f"**failed**:\n\n```\n{out.stderr[-2000:]}\n```", [], 0.0)
    import json

    times = json.loads(line[6:])
    plain, watched, unlogged = (
        statistics.median(times[k]) for k in ("plain", "watched", "unlogged")
    )
    # per round, from segments run next to each other (the machine's load drifts)
    ratio, other = (
        statistics.median(a / b for a, b in zip(times[k], times["plain"]))
        for k in ("watched", "unlogged")
    )
    logging_ms = (watched - plain) * 100 * 1e3  # the extra cost of one logging step
    md = (
        "MLP 784-256-10, batch 64, SGD; `watch_model(every_n_steps=100)` (value and gradient "
        "histograms, norms and update ratio of its 4 variables, computed in a second "
        "compiled variant of the step that runs on the logging steps only) against the same "
        "job without it (all three open the summary writer in their body), and with "
        "`every_n_steps=10**9` (only step 0 logs: what the other "
        f"steps pay); {rounds} rounds of {calls} calls in one process, order rotating, "
        "each ending with `flow.sync_default_session()` (which returns once the calls' "
        "programs ran); ms per call: the median over rounds, ratios: the median of the "
        "rounds' ratios. The extra cost of one logging step is (watched - "
        f"plain) x 100, here {logging_ms:.1f} ms: the logging variant of the program "
        "(histograms, norms) and the host writer.\n\n"
        + table(
            ["job", "ms / step", "ratio"],
            [
                ["without watch_model", f"{plain * 1e3:.3f}", "1.00"],
                ["watch_model(every_n_steps=100)", f"{watched * 1e3:.3f}", f"{ratio:.3f}"],
                ["watch_model, steps that do not log", f"{unlogged * 1e3:.3f}", f"{other:.3f}"],
            ],
        )
    )
    return Section(
        title,
        md,
        [
            goal("watch_model(every_n_steps=100) step time / plain step time", ratio, "<=", 1.03),
            goal("watch_model steps that do not log / plain step time", other, "<=", 1.03),
        ],
        time.time() - t0,
    )
