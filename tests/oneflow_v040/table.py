"""``results.json`` (the last outcome of every file at every device count it ran) and
``RESULTS.md`` written from it: one row per file with its outcome at 1, 2 and 4 devices, the
file's overall result and, for failures, the cause."""

from __future__ import annotations

import collections
import dataclasses
import datetime
import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from ._run import REPO, Result
from .suite import COUNTS, KNOWN_FAILURES, NOTES, TOTAL_FILES

_FIELDS = {f.name for f in dataclasses.fields(Result)}


@dataclasses.dataclass
class FileRecord:
    """One file: the device counts it has tests for, its runs by count, and whether it
    also has 2-node classes."""

    file: str
    runs: dict[int, Result]
    counts: tuple[int, ...] = (1,)
    two_nodes: bool = False

    @property
    def status(self) -> str:
        """pass: it passes at every count where a test ran (and one did); fail: it fails at
        one; "skipped upstream": no test runs at any count (skips or none) and none needs 2
        nodes; "needs 2 nodes": likewise, but it has 2-node classes; "not run": a count of
        it has not run (and none failed)."""
        tested = [r for r in self.runs.values() if r.status not in ("skip", "empty")]
        if any(r.status in ("fail", "timeout") for r in tested):
            return "fail"
        if any(n not in self.runs for n in self.counts):
            return "not run"
        if tested:
            return "pass"
        return "needs 2 nodes" if self.two_nodes else "skipped upstream"

    def failure(self) -> Result | None:
        return next((r for r in self.runs.values() if r.status in ("fail", "timeout")), None)


def update_results(
    json_path: Path,
    md_path: Path,
    results: Sequence[Result],
    shapes: Mapping[str, tuple[tuple[int, ...], bool]],
) -> None:
    """Merges ``results`` into ``json_path``, then writes ``md_path`` from it. A partial run
    updates only the (file, device count) pairs it ran. ``shapes``: file -> (the device
    counts it has tests for, whether it has 2-node classes), read from the files."""
    stored = json.loads(json_path.read_text()) if json_path.exists() else {}
    commit = _commit()
    today = datetime.date.today().isoformat()
    for name, (counts, two_nodes) in shapes.items():
        entry = stored.setdefault(name, {"runs": {}})
        entry.update(counts=list(counts), two_nodes=two_nodes)
    for r in results:
        row = dataclasses.asdict(r)
        del row["output"]
        row["seconds"] = round(row["seconds"], 1)
        stored[r.file]["runs"][str(r.devices)] = {**row, "commit": commit, "date": today}
    stored = {name: stored[name] for name in sorted(stored)}
    json_path.write_text(json.dumps(stored, indent=1) + "\n")
    write_results(md_path, load_records(stored), _commits(stored))


def load_records(stored: Mapping[str, dict]) -> list[FileRecord]:
    return [
        FileRecord(
            name,
            {
                int(n): Result(**{k: v for k, v in row.items() if k in _FIELDS})
                for n, row in sorted(entry["runs"].items(), key=lambda kv: int(kv[0]))
            },
            tuple(entry.get("counts", (1,))),
            entry.get("two_nodes", False),
        )
        for name, entry in stored.items()
    ]


def _commits(stored: Mapping[str, dict]) -> list[str]:
    return sorted({row["commit"] for e in stored.values() for row in e["runs"].values()})


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


def _run_cell(rec: FileRecord, n: int) -> str:
    r = rec.runs.get(n)
    if r is None:
        return "not run" if n in rec.counts else "-"
    if r.status == "skip":
        return "skip"
    if r.status == "empty":
        return "no test"
    return f"{r.status} {r.ran - r.skipped}"


def _cause(rec: FileRecord) -> str:
    status = rec.status
    if status == "fail":
        bad = rec.failure()
        known = KNOWN_FAILURES.get(rec.file, "")
        where = f"at {bad.devices} device(s): " if bad and bad.devices > 1 else ""
        error = f" (`{bad.error}`)" if bad and bad.error else ""
        return where + (known + error if known else error.strip(" ()`") or "unknown")
    if status == "skipped upstream":
        reasons = {r.skip_reason for r in rec.runs.values() if r.skip_reason}
        why = "; ".join(sorted(reasons)) or "no test in the file runs"
        return NOTES.get(rec.file, why)
    return NOTES.get(rec.file, "")


def write_results(path: Path, records: Sequence[FileRecord], commits: Sequence[str] = ()) -> None:
    """Writes the table and the whole-folder summary."""
    counts = collections.Counter(rec.status for rec in records)
    missing = TOTAL_FILES - len(records) + counts["not run"]
    lines = [
        "# OneFlow v0.4.0 op tests on flowjob",
        "",
        "Written by `python -m tests.oneflow_v040` from `results.json` (do not edit by hand);",
        "how the files run is in `README.md` beside this file, the known causes of failures in",
        f"`suite.py`. Run at flowjob commit {', '.join(commits) or 'unknown'} on a CPU-only"
        " machine, one node, each file at 1 device and at each count of its"
        f" `skip_unless_1n<N>d` classes ({', '.join(map(str, COUNTS[1:]))} virtual CPU devices;"
        ' the tests\' "gpu" cases run on the CPU), with the files read from a OneFlow clone at'
        " tag v0.4.0 and their TensorFlow reference pinned to oneDNN"
        " (`TF_ENABLE_ONEDNN_OPTS=1`).",
        "",
        f"**{counts['pass']} of {TOTAL_FILES} files pass at their device counts**; "
        f"{counts['fail']} fail; {counts['skipped upstream']} skip every test upstream (not"
        f" counted as passing); {counts['needs 2 nodes']} have tests for 2 nodes only"
        + (f"; {missing} not run at every count yet" if missing else "")
        + ".",
        "",
        "A file passes when it passes at every device count where a test of it runs. A cell",
        "shows the outcome and the number of tests that ran unskipped at that count; `skip`:",
        "every test skipped itself there; `-`: the file has no tests for that count. 2-node",
        "classes (`skip_unless_2n<N>d`) cannot run on one machine and are marked `not run`.",
        "",
        "| file | 1 device | 2 devices | 4 devices | 2 nodes | result | cause / note |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for rec in sorted(records, key=lambda rec: rec.file):
        cells = [_run_cell(rec, n) for n in COUNTS]
        two = "not run" if rec.two_nodes else "-"
        lines.append(
            f"| {rec.file} | {' | '.join(cells)} | {two} | {rec.status} | {_cell(_cause(rec))} |"
        )
    path.write_text("\n".join(lines) + "\n")
