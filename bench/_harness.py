"""Runs variants side by side: one process per variant, short timed segments in turn.

The machine is shared, so its load changes from second to second. Each variant lives in its
own worker process (its own imports, threads and memory); the parent asks the workers in turn
to run a segment of N steps, in an order that changes every round. A ratio between two
variants is computed per round from segments that ran seconds apart, and reported as the
median over rounds with its range, which cancels most of the drift in the machine's load.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


PAUSE = 0.3
# Untimed steps at the start of every timed segment, in seconds of the variant's own steps.
# After a pause this VM's scheduler keeps a process's threads packed onto one CPU for its
# first ~100 ms of work (bench/NOTES.md, session 21), whatever the variant: the lead-in lets
# the timed steps run at the machine's speed.
LEAD = 0.15


class WorkerError(RuntimeError):
    pass


class Worker:
    """A ``bench._worker`` process; ``ready`` holds its start-up report."""

    def __init__(self, name: str, spec: dict, env: dict | None = None, timeout: float = 300):
        self.name = name
        self.timeout = timeout
        full_env = dict(os.environ)
        full_env.setdefault("FLOWJOB_CACHE_DIR", "")  # cold compiles unless a test sets one
        if spec.get("device") != "gpu":  # CPU figures stay CPU figures on a GPU machine
            full_env.setdefault("JAX_PLATFORMS", "cpu")
        full_env.update(env or {})
        self._stderr = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(
            # spec "python": another interpreter (one with TensorFlow, say); REPO is the cwd
            [spec.get("python") or sys.executable, "-m", "bench._worker", json.dumps(spec)],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            env=full_env,
        )
        self.ready = self._read()

    def _read(self) -> dict:
        while True:
            line = self.proc.stdout.readline()
            if not line:
                self.proc.wait(timeout=30)
                self._stderr.seek(0)
                tail = self._stderr.read()[-3000:]
                raise WorkerError(f"worker {self.name} exited ({self.proc.returncode}):\n{tail}")
            if line.startswith("BENCH "):
                return json.loads(line[6:])

    def ask(self, **cmd) -> dict:
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self) -> dict:
        try:
            out = self.ask(cmd="quit")
            self.proc.wait(timeout=60)
            return out
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self._stderr.close()


@dataclass
class Series:
    """Steps per second of one variant, one value per round."""

    rates: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.rates)

    @property
    def best(self) -> float:
        return max(self.rates)

    def spread(self) -> str:
        return f"{min(self.rates):.4g}–{max(self.rates):.4g}"


def paired_rounds(
    workers: dict[str, Worker],
    rounds: int,
    steps: dict[str, int],
    pause: float = PAUSE,
    lead: float = LEAD,
) -> dict[str, Series]:
    """Steps/s of every worker per round, in the order ``balanced_orders`` gives each round.

    ``pause`` seconds pass before each segment: the previous worker's idle threads (XLA's
    pool spins a while after its work) would otherwise slow down the next one. Every worker
    first runs one untimed segment: a worker that sat idle while the others started (minutes
    for ResNet-50) ran its first timed steps up to 2x slower, in kernel time (bench/NOTES.md).
    Each timed segment starts with ``lead_steps`` untimed steps (about ``lead`` seconds)."""
    names = list(workers)
    out = {n: Series() for n in names}
    leads = {}
    for name in names:
        time.sleep(pause)
        t0 = time.perf_counter()
        workers[name].ask(cmd="warm", n=steps[name])
        leads[name] = lead_steps(steps[name] / (time.perf_counter() - t0), lead, steps[name])
    orders = balanced_orders(len(names))
    for r in range(rounds):
        for name in (names[i] for i in orders[r % len(orders)]):
            time.sleep(pause)
            res = workers[name].ask(cmd="run", n=steps[name], lead=leads[name])
            out[name].rates.append(res["n"] / res["s"])
    return out


def balanced_orders(n: int) -> list[list[int]]:
    """Orders of ``n`` variants, one per round, in which every variant comes right after
    every other equally often (a Williams design: ``n`` rounds for even ``n``, ``2 n`` for odd).

    A variant's segment is slowed by the one before it (its threads still spinning, the
    caches it left), so each needs every neighbour equally often. A plain rotation keeps
    the same neighbour in every round: the MLP flowjob step always ran right after the
    2048² matmul's segment (bench/NOTES.md, session 22)."""
    first, low, high = [0], 1, n - 1
    while len(first) < n:
        first.append(low)
        low += 1
        if len(first) < n:
            first.append(high)
            high -= 1
    rows = [[(i + r) % n for i in first] for r in range(n)]
    return rows if n % 2 == 0 else rows + [row[::-1] for row in rows]


def lead_steps(rate: float, lead: float, n: int) -> int:
    """Untimed steps before a segment of ``n`` steps at ``rate`` steps/s: about ``lead``
    seconds, at most a quarter of the segment (none for segments of a few long steps, where
    the ~100 ms after a pause weigh little)."""
    return min(math.ceil(rate * lead), n // 4)


COPY = " (process {})"  # the name of a variant's second, third... process


def copies(specs: dict[str, dict], n: int) -> dict[str, dict]:
    """Each variant of ``specs`` in ``n`` processes: the first keeps its name, the others are
    named ``name (process 2)``... (``pooled`` merges their series again).

    Two processes of the same variant ran at rates up to 3% apart over 12 rounds (the MLP
    step, flowjob and JAX alike: bench/NOTES.md, session 16): the memory and threads a
    process happened to get stay with it for all its rounds, so a ratio between single
    processes carries that luck. Pooling several processes per variant averages it out."""
    out = {}
    for i in range(n):
        for name, spec in specs.items():
            if i == 0:
                out[name] = spec
            else:  # profiles and HLO dumps come from the first process
                out[name + COPY.format(i + 1)] = {k: v for k, v in spec.items() if k != "profile"}
    return out


def pooled(series: dict[str, Series], names: list[str], n: int) -> dict[str, Series]:
    """``paired_rounds``' series of ``copies(specs, n)``, one per variant of ``names`` again:
    each round's rate is the geometric mean of the variant's processes' rates that round."""
    out = {}
    for name in names:
        group = [series[name]] + [series[name + COPY.format(i + 1)] for i in range(1, n)]
        out[name] = Series(
            [statistics.geometric_mean(rates) for rates in zip(*(g.rates for g in group))]
        )
    return out


def processes_note(series: dict[str, Series], names: list[str], n: int) -> str:
    """What ``pooled`` did, for a section's text, with each variant's own spread: the median
    ratio of its first process to its second, the noise floor of a ratio between variants."""
    if n == 1:
        return ""
    own = "; ".join(
        f"{name} {ratio(series, name, name + COPY.format(2))[0]:.3f}×" for name in names
    )
    return (
        f", each variant in {n} processes (a round's rate is the geometric mean of its "
        f"processes'; the same variant's process 1 / process 2: {own})"
    )


def ratio(series: dict[str, Series], a: str, b: str) -> tuple[float, float, float]:
    """Per-round throughput ratio a/b: (median, min, max)."""
    values = [x / y for x, y in zip(series[a].rates, series[b].rates)]
    return statistics.median(values), min(values), max(values)


def fmt_ratio(r: tuple[float, float, float]) -> str:
    return f"**{r[0]:.2f}×** ({r[1]:.2f}–{r[2]:.2f})"


def steps_for(rate_hint: float, seconds: float) -> int:
    """Steps that take about ``seconds`` at ``rate_hint`` steps/s (at least 2)."""
    return max(2, int(rate_hint * seconds))


def start_all(
    specs: dict[str, dict], envs: dict[str, dict] | None = None, timeout: float = 300
) -> dict[str, Worker]:
    """Starts workers one after another (so compiles do not compete); closes all on error."""
    workers: dict[str, Worker] = {}
    try:
        for name, spec in specs.items():
            workers[name] = Worker(name, spec, (envs or {}).get(name), timeout)
    except BaseException:
        close_all(workers)
        raise
    return workers


def close_all(workers: dict[str, Worker]) -> dict[str, dict]:
    out = {}
    for name, w in workers.items():
        try:
            out[name] = w.close()
        except Exception as e:  # noqa: BLE001 - report what closed cleanly
            out[name] = {"error": str(e)}
    return out


def calibrate(workers: dict[str, Worker], seconds: float) -> dict[str, int]:
    """Steps per segment so that each worker's segment lasts about ``seconds``."""
    steps = {}
    for name, w in workers.items():
        n = 3
        while True:
            time.sleep(PAUSE)
            res = w.ask(cmd="run", n=n)
            if res["s"] > 0.05 or n >= 1000:
                break
            n *= 4
        steps[name] = steps_for(n / res["s"], seconds)
    return steps
