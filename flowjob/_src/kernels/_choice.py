"""Which kernel serves a CPU convolution, oneDNN's or XLA's: measured on this machine.

Neither wins everywhere, and the winner depends on the CPU: on the AMD EPYC machine of
``BENCHMARKS.md`` oneDNN served ResNet-50's convolutions faster than XLA, on a 2-core Intel
Xeon XLA's ran LeNet faster (issue 35), and below 32 products per output element oneDNN lost
on both. A fixed rule cannot follow the machine, so the first time a job traces a convolution
(its shapes, strides, padding, dilation, groups and layout), both candidates run its forward
pass and both gradients on random data, a few times each, alternating; the faster one serves
that convolution from then on (XLA's only by a margin, :data:`XLA_MARGIN`). Decisions are
kept in memory and in one file per machine, ``$XDG_CACHE_HOME/flowjob/conv-kernels.json``
(``FLOWJOB_CONV_KERNEL_FILE`` names another; empty: memory only), keyed by the CPU model, its
core count, the versions of JAX and of the kernels and the race's rule, so later processes
measure nothing: only the first run on a machine pays, once per convolution (LeNet about 2.5 s,
ResNet-50 about 12 s on the 2-core machine of ``BENCHMARKS.md``).

``FLOWJOB_CONV_KERNEL`` chooses the policy: ``measure`` (default), ``onednn`` or ``xla``
(always that one, where oneDNN can serve the convolution at all), or ``rule`` (oneDNN from
32 products per output element, no measurement: the rule before measuring).
"""

from __future__ import annotations

import json
import os
import platform
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from .._cache_dir import default_cache_dir
from .._files import atomic_file, read_bounded

__all__ = ["POLICIES", "policy", "prefer_onednn"]

POLICIES = ("measure", "onednn", "xla", "rule")
FILE_NAME = "conv-kernels.json"
_FILE_LIMIT = 4 << 20  # bytes: far more decisions than any set of models makes
_REPEATS = 3  # timed runs of each candidate after its first (compiling) run
# XLA serves only when its race time is below this share of oneDNN's. Three repeats on a
# shared machine do not separate close kernels, and in whole steps the close calls went to
# oneDNN's favour: ResNet-50 batch 8 with every convolution on oneDNN ran 1.04-1.08x the
# plainly measured choice (its four XLA winners), and a LeNet process that ran at the all-XLA
# job's rate ran at 0.67x the all-oneDNN job (bench/NOTES.md, issue 35).
XLA_MARGIN = 0.85
# Part of every decision's key: a change to how races are run or judged (the margin, the
# repeats) bumps it, so decisions made under an older rule are measured again.
RULE_VERSION = 2
_lock = threading.Lock()
_decisions: dict[str, bool] = {}  # key -> oneDNN chosen; this process's and the file's


def policy() -> str:
    """``FLOWJOB_CONV_KERNEL``, checked: one of :data:`POLICIES`."""
    value = os.environ.get("FLOWJOB_CONV_KERNEL", "measure").strip().lower() or "measure"
    if value not in POLICIES:
        raise ValueError(f"FLOWJOB_CONV_KERNEL must be one of {POLICIES}, got {value!r}")
    return value


def prefer_onednn(
    signature: tuple, candidates: Callable[[], tuple[Callable[[], Any], Callable[[], Any]]]
) -> bool:
    """Whether oneDNN serves the convolution ``signature`` (hashable, its shapes and
    settings) under the ``measure`` policy. ``candidates()`` gives two callables that each
    run the convolution's forward pass and gradients once, oneDNN's then XLA's, and return
    when done; they are called only when no decision exists yet."""
    key = f"{_machine()}|{'|'.join(map(_text, signature))}"
    with _lock:
        if not _decisions:
            _decisions.update(_stored())
        if key in _decisions:
            return _decisions[key]
    _announce()
    onednn_s, xla_s = race(*candidates())
    chosen = not xla_s < XLA_MARGIN * onednn_s
    with _lock:
        _decisions[key] = chosen
        _store(key, chosen)
    return chosen


_announced: list[bool] = []


def _announce() -> None:
    """One line on stderr the first time this process races: the pause it makes (seconds
    per new convolution) is otherwise silent."""
    if not _announced:
        _announced.append(True)
        print(
            "flowjob: timing oneDNN and XLA on each new convolution shape, once per machine "
            f"(kept in {_path() or 'memory'}; FLOWJOB_CONV_KERNEL=rule skips it)",
            file=sys.stderr,
        )


def race(first: Callable[[], Any], second: Callable[[], Any]) -> tuple[float, float]:
    """The best time of each callable over :data:`_REPEATS` alternating runs, after one
    untimed run each (which compiles it)."""
    first()
    second()
    best = [float("inf"), float("inf")]
    for _ in range(_REPEATS):
        for i, run in enumerate((first, second)):
            start = time.perf_counter()
            run()
            best[i] = min(best[i], time.perf_counter() - start)
    return best[0], best[1]


def _text(part: Any) -> str:
    return str(getattr(part, "value", part))  # enum members by their value


def _machine() -> str:
    from importlib import metadata

    import jax

    try:
        kernels = metadata.version("flowjob-onednn")
    except metadata.PackageNotFoundError:
        kernels = "-"
    version = f"jax {jax.__version__}|onednn {kernels}|race v{RULE_VERSION}"
    return f"{_cpu_model()} x{os.cpu_count()}|{version}"


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _path() -> str | None:
    """``FLOWJOB_CONV_KERNEL_FILE`` (empty: decisions in memory only), else
    ``conv-kernels.json`` in ``$XDG_CACHE_HOME/flowjob``: one file per machine, whatever the
    compile cache (``FLOWJOB_CACHE_DIR``) is, so a process with a fresh or no compile cache
    still knows this machine's kernels."""
    named = os.environ.get("FLOWJOB_CONV_KERNEL_FILE")
    if named is not None:
        return named or None
    return os.path.join(os.path.dirname(default_cache_dir()), FILE_NAME)


def _stored() -> dict[str, bool]:
    """The file's decisions; nothing when it is missing or unreadable (then they are measured
    again and the file rewritten)."""
    path = _path()
    if path is None or not os.path.exists(path):
        return {}
    try:
        data = json.loads(read_bounded(path, _FILE_LIMIT))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, bool)}


def _store(key: str, chosen: bool) -> None:
    path = _path()
    if path is None:
        return
    merged = {**_stored(), key: chosen}  # another process may have added its own
    try:
        with atomic_file(path) as f:
            f.write(json.dumps(merged, indent=0, sort_keys=True).encode())
    except OSError:  # a read-only cache folder: the decision stays in memory
        pass
