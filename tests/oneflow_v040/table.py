"""Writes ``RESULTS.md``: one row per listed file with its outcome and, for failures, the cause."""

from __future__ import annotations

import collections
import datetime
from collections.abc import Sequence
from pathlib import Path

from ._run import Result
from .suite import EXCLUDED, SUITE


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def write_results(path: Path, results: Sequence[Result]) -> None:
    counts = collections.Counter(r.status for r in results)
    counted = counts["pass"] + counts["fail"] + counts["timeout"]
    rate = 100.0 * counts["pass"] / counted if counted else 0.0
    lines = [
        "# OneFlow v0.4.0 op tests on flowjob",
        "",
        "Written by `python -m tests.oneflow_v040` (do not edit by hand); the list and the",
        "exclusions are in `suite.py`, how they were chosen in `README.md` beside this file.",
        f"Run on {datetime.date.today().isoformat()}, CPU only, one device"
        " (`ONEFLOW_TEST_CPU_ONLY=1`, `ONEFLOW_TEST_DEVICE_NUM=1`).",
        "",
        f"**{counts['pass']} of {counted} single-device files pass ({rate:.0f}%)**;"
        f" {counts['fail'] + counts['timeout']} fail; {counts['skip']} skip every test on"
        " this machine (GPU-only, eager-only or multi-device tests: not counted).",
        "",
        "| file | result | tests run / skipped | cause |",
        "| --- | --- | --- | --- |",
    ]
    for r in sorted(results, key=lambda r: r.file):
        cause = ""
        if r.status in ("fail", "timeout"):
            known = SUITE.get(r.file) or ""
            cause = known + (f" (`{r.error}`)" if r.error else "") if known else r.error
        elif r.status == "skip":
            cause = SUITE.get(r.file) or "every test skips itself on a CPU-only 1-device run"
        lines.append(f"| {r.file} | {r.status} | {r.ran} / {r.skipped} | {_cell(cause)} |")
    lines += ["", "## Not in the list", "", "| file | why |", "| --- | --- |"]
    lines += [f"| {name} | {_cell(why)} |" for name, why in sorted(EXCLUDED.items())]
    path.write_text("\n".join(lines) + "\n")
