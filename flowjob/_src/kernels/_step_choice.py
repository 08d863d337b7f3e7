"""The per-convolution choice re-checked on the whole train step it serves.

A race (``_choice``) times one convolution alone, on both cores. Inside a train step the
convolutions share the cores with XLA's other work and with each other, and the race's XLA
winners lost there: the measured mix ran at 0.92x the all-oneDNN step for ResNet-50 (batch
8), 0.95x for LeNet and 0.96x for the DCGAN in ``BENCHMARKS.md``, and at 0.83x for ResNet-50 on
a 2-core Intel Xeon (issue 47). So when a train step's measured decisions mix the two kernels,
its first compile on a machine also compiles the step with every convolution on oneDNN, runs
both on the job's state and first inputs, and keeps the faster (the mix by a margin,
``MIX_MARGIN``): oneDNN's whole step wins by
turning the mix's XLA decisions into oneDNN ones (so later processes trace it as one kernel
and judge nothing); the mix wins by a decision under the step's own key (the set of its
convolutions), so it is not timed again. A step whose convolutions all took one kernel is not
re-checked: XLA's whole step was the slower on every model and machine measured (ResNet-50
1.5x the time, LeNet 1.5x, DCGAN 2.2x).
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from ._choice import decide, decided, policy

__all__ = ["judge_step", "keep_verdict", "step_needs_judging"]

_STEP_RUNS = 2  # timed runs of each step, alternating, after one untimed run each
# The mix must beat oneDNN's whole step by this factor to be kept: it lost in every bench
# run so far once both were timed over many steps (above; with channels-last programs,
# ResNet-50 at 0.93x on the Intel Xeon), while two runs each at a first compile, on a
# machine whose step times swing by 10%, picked it now and then.
MIX_MARGIN = 1.03


def _step_key(chosen: Sequence[tuple[str, bool]]) -> str:
    keys = sorted({key for key, _ in chosen})
    digest = hashlib.sha256("\n".join(keys).encode()).hexdigest()[:24]
    machine = keys[0].split("|race", 1)[0]  # the machine's and versions' words
    return f"{machine}|train step|{digest}"


def step_needs_judging(chosen: Sequence[tuple[str, bool]]) -> bool:
    """Whether a train step whose convolutions took the measured ``chosen`` decisions
    (``_choice.recording``) is to be timed whole against oneDNN's: they mix the two kernels,
    under the ``measure`` policy, and no judgment of this step was kept."""
    kinds = {onednn for _, onednn in chosen}
    if kinds != {True, False} or policy() != "measure":
        return False
    return decided(_step_key(chosen)) is None


def judge_step(
    name: str,
    chosen: Sequence[tuple[str, bool]],
    measured: Callable[[], Any],
    onednn: Callable[[], Any],
) -> bool:
    """Times the step ``name`` with its measured decisions (``measured()`` runs it once and
    returns when done) against the same step with every convolution on oneDNN
    (``onednn()``), keeps the verdict and returns whether oneDNN's step won: unless the
    measured mix was ``MIX_MARGIN`` times as fast."""
    print(
        f"flowjob: timing job {name!r}'s train step with its measured convolution kernels "
        "against all on oneDNN, once per machine",
        file=sys.stderr,
    )
    best = [float("inf"), float("inf")]
    runs = (measured, onednn)
    for run in runs:
        run()  # its first run: allocations, caches
    for _ in range(_STEP_RUNS):
        for i, run in enumerate(runs):
            start = time.perf_counter()
            run()
            best[i] = min(best[i], time.perf_counter() - start)
    wins = best[1] < best[0] * MIX_MARGIN
    keep_verdict(chosen, wins)
    return wins


def keep_verdict(chosen: Sequence[tuple[str, bool]], onednn_wins: bool) -> None:
    """Keeps a judgment of the step whose convolutions took ``chosen``: oneDNN's whole step
    won (its XLA decisions become oneDNN ones) or the measured mix did (kept as it is, under
    the step's key)."""
    if onednn_wins:
        for key, was_onednn in chosen:
            if not was_onednn:
                decide(key, True)
    else:
        decide(_step_key(chosen), False)
