"""``results.json`` (the last outcome of every listed file) and ``RESULTS.md`` written from it:
one row per listed file with its outcome and, for failures, the cause."""

from __future__ import annotations

import collections
import dataclasses
import datetime
import json
import subprocess
from collections.abc import Sequence
from pathlib import Path

from ._run import REPO, Result
from .suite import EXCLUDED, SUITE


def update_results(json_path: Path, md_path: Path, results: Sequence[Result]) -> None:
    """Merges ``results`` into ``json_path`` (files no longer listed drop out), then writes
    ``md_path`` from it. A partial run updates only the files it ran."""
    stored = json.loads(json_path.read_text()) if json_path.exists() else {}
    commit = _commit()
    for r in results:
        row = dataclasses.asdict(r)
        del row["output"]
        row["seconds"] = round(row["seconds"], 1)
        stored[r.file] = {**row, "commit": commit, "date": datetime.date.today().isoformat()}
    stored = {name: stored[name] for name in sorted(stored) if name in SUITE}
    json_path.write_text(json.dumps(stored, indent=1) + "\n")
    fields = {f.name for f in dataclasses.fields(Result)}
    write_results(
        md_path,
        [Result(**{k: v for k, v in row.items() if k in fields}) for row in stored.values()],
        sorted({row["commit"] for row in stored.values()}),
    )


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "flowjob"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        return out + ("+changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def write_results(path: Path, results: Sequence[Result], commits: Sequence[str] = ()) -> None:
    """Writes the table; listed files without a result show as "not run"."""
    have = {r.file for r in results}
    rows = [*results, *(Result(name, "not run") for name in SUITE if name not in have)]
    counts = collections.Counter(r.status for r in rows)
    failed = counts["fail"] + counts["timeout"]
    counted = counts["pass"] + failed
    rate = 100.0 * counts["pass"] / counted if counted else 0.0
    lines = [
        "# OneFlow v0.4.0 op tests on flowjob",
        "",
        "Written by `python -m tests.oneflow_v040` from `results.json` (do not edit by hand). The",
        "list and the exclusions are in `suite.py`; how they were chosen is in `README.md` beside",
        f"this file. Run at flowjob commit {', '.join(commits) or 'unknown'} on a CPU-only"
        ' machine, one node, one device (`ONEFLOW_TEST_DEVICE_NUM=1`; the tests\' "gpu" cases'
        " run on the CPU), with the files read from a OneFlow clone at tag v0.4.0 and their"
        " TensorFlow reference pinned to oneDNN (`TF_ENABLE_ONEDNN_OPTS=1`).",
        "",
        f"**{counts['pass']} of {counted} listed files pass ({rate:.0f}%)**; {failed} fail"
        + (f"; {counts['not run']} not run" if counts["not run"] else "")
        + (f"; {counts['skip']} skip every test here" if counts["skip"] else "")
        + ".",
        "A file passes when every test in it passes or skips itself (each file also has tests",
        "for other machine shapes, which skip themselves here).",
        "",
        "| file | result | tests run / skipped | cause of failure |",
        "| --- | --- | --- | --- |",
    ]
    for r in sorted(rows, key=lambda r: r.file):
        cause = ""
        if r.status in ("fail", "timeout"):
            known = SUITE.get(r.file) or ""
            cause = f"{known} (`{r.error}`)" if known and r.error else known or r.error
        lines.append(f"| {r.file} | {r.status} | {r.ran} / {r.skipped} | {_cell(cause)} |")
    lines += [
        "",
        f"## Not in the list ({len(EXCLUDED)} files)",
        "",
        "| file | why |",
        "| --- | --- |",
    ]
    lines += [f"| {name} | {_cell(why)} |" for name, why in sorted(EXCLUDED.items())]
    path.write_text("\n".join(lines) + "\n")
