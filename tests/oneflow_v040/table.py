"""``results.json`` (the last outcome of every file at every device count it ran) and
``RESULTS.md`` written from it: a summary per folder of OneFlow's test tree, then one row per
file with its outcome at 1, 2 and 4 devices, the file's overall result and, for failures, the
cause; ``ops/`` has a second column for its eager run."""

from __future__ import annotations

import collections
import dataclasses
import datetime
import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from ._run import REPO, Result
from .folders import ELSEWHERE, FOLDERS
from .suite import (
    COUNTS,
    EAGER_KNOWN_FAILURES,
    EXPECTED,
    KNOWN_FAILURES,
    NOTES,
    STANDINS,
    TOTAL_FILES,
)

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
    updates only the (file, run) pairs it ran (a run: a device count, or "eager N" for the
    eager column of ``ops/``). ``shapes``: file -> (the device counts it has tests for,
    whether it has 2-node classes), read from the files; an ``ops/`` file by its name, a file
    of another folder as ``folder/name``."""
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
        stored[r.file]["runs"][r.key] = {**row, "commit": commit, "date": today}
    stored = {name: stored[name] for name in sorted(stored)}
    json_path.write_text(json.dumps(stored, indent=1) + "\n")
    ops = load_records(stored)
    write_results(
        md_path, ops, _commits(stored), load_records(stored, "eager"), load_folder_records(stored)
    )


def _record(name: str, entry: Mapping, runs: Mapping[str, dict]) -> FileRecord:
    return FileRecord(
        name,
        {
            int(row["devices"]): Result(**{k: v for k, v in row.items() if k in _FIELDS})
            for _, row in sorted(runs.items(), key=lambda kv: int(kv[1]["devices"]))
        },
        tuple(entry.get("counts", (1,))),
        entry.get("two_nodes", False),
    )


def load_records(stored: Mapping[str, dict], column: str = "lazy") -> list[FileRecord]:
    """The ``ops/`` files with their runs of ``column`` ("lazy" or "eager")."""
    return [
        _record(
            name,
            entry,
            {k: row for k, row in entry["runs"].items() if row.get("column", "lazy") == column},
        )
        for name, entry in stored.items()
        if "/" not in name
    ]


def load_folder_records(stored: Mapping[str, dict]) -> list[FileRecord]:
    """The files of the other folders (``folder/name``) with their runs."""
    return [_record(name, entry, entry["runs"]) for name, entry in stored.items() if "/" in name]


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


def _run_cell(rec: FileRecord, n: int, script: bool = False) -> str:
    r = rec.runs.get(n)
    if r is None:
        return "not run" if n in rec.counts else "-"
    if r.status == "skip":
        return "skip"
    if r.status == "empty":
        return "no test"
    if script:  # a script has no test count: it ran to its end or not
        return "ran to end" if r.status == "pass" else r.status
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


def folder_result(rec: FileRecord) -> tuple[str, str]:
    """(result, cause) of a file of another folder: a failure that matches its expected
    outcome (``suite.EXPECTED``) shows the expected kind and cause; otherwise as ``ops/``."""
    expected = EXPECTED.get(rec.file)
    bad = rec.failure()
    if expected is not None and rec.status == "fail" and bad and expected.matches(bad):
        standin = STANDINS.get(rec.file)
        note = f"; {standin.note or 'no stand-in yet'}" if standin else ""
        return expected.kind, f"{expected.cause} (`{bad.error}`){note}"
    cause = _cause(rec)
    if expected is not None and rec.status == "pass":
        cause = f"expected {expected.kind} ({expected.cause}), but it passes"
    return rec.status, cause


def _eager_cell(rec: FileRecord) -> str:
    if not rec.runs:
        return "not run"
    seconds = sum(r.seconds for r in rec.runs.values())
    status = rec.status
    ran = sum(r.ran - r.skipped for r in rec.runs.values())
    shown = {"pass": f"pass {ran}", "skipped upstream": "skip"}.get(status, status)
    return f"{shown} ({seconds:.0f} s)"


def _summary_row(name: str, how: str, statuses: Sequence[str]) -> str:
    counts = collections.Counter(statuses)
    known = sum(n for s, n in counts.items() if s not in _PLAIN)
    return (
        f"| {name} | {how} | {len(statuses)} | {counts['pass']} | {counts['fail']} | {known} | "
        f"{counts['skipped upstream'] + counts['needs 2 nodes']} | {counts['not run']} |"
    )


def _ops_status(rec: FileRecord, known: Mapping[str, str] = KNOWN_FAILURES) -> str:
    """An ``ops/`` file's status for the summary: a failure with a cause in ``suite.py``
    (``known``: the lazy or the eager causes) is a known cause."""
    return "known cause" if rec.status == "fail" and rec.file in known else rec.status


_PLAIN = ("pass", "fail", "skipped upstream", "needs 2 nodes", "not run")


def write_results(
    path: Path,
    records: Sequence[FileRecord],
    commits: Sequence[str] = (),
    eager: Sequence[FileRecord] = (),
    folders: Sequence[FileRecord] = (),
) -> None:
    """Writes the per-folder summary, the ``ops/`` table (``records``, lazy; ``eager``: the
    same files' eager runs, a column) and one table per other folder (``folders``)."""
    counts = collections.Counter(rec.status for rec in records)
    missing = TOTAL_FILES - len(records) + counts["not run"]
    by_folder: dict[str, list[FileRecord]] = collections.defaultdict(list)
    for rec in folders:
        by_folder[rec.file.split("/", 1)[0]].append(rec)
    eager_by_file = {rec.file: rec for rec in eager}
    eager_run = [rec for rec in eager if rec.runs]
    eager_statuses = [
        _ops_status(eager_by_file[rec.file], EAGER_KNOWN_FAILURES)
        if rec.file in eager_by_file
        else "not run"
        for rec in records
    ]
    eager_counts = collections.Counter(eager_statuses)
    lines = [
        "# OneFlow v0.4.0 tests on flowjob",
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
        "## Folders",
        "",
        "Each folder of `oneflow/python/test` runs as OneFlow's CI ran it. `known cause`: the",
        "file fails with the error its cause in `suite.py` names (private data, broken",
        "upstream...); `skipped`: every test skips itself upstream, or needs 2 nodes.",
        "",
        "| folder | how it runs | files | pass | fail | known cause | skipped | not run |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
        _summary_row(
            "ops (lazy)",
            "`ci/test/1node_op_test.sh`: each file as a script, then discovery at 2 and 4"
            " devices",
            [_ops_status(rec) for rec in records] + ["not run"] * (TOTAL_FILES - len(records)),
        ),
        _summary_row(
            "ops (eager)",
            "the same with `ONEFLOW_TEST_ENABLE_EAGER=1` (the `cpu_op_eager`/`cuda_op_eager`"
            f" jobs); {len(eager_run)} of {TOTAL_FILES} files run so far",
            eager_statuses + ["not run"] * (TOTAL_FILES - len(records)),
        ),
    ]  # fmt: skip
    for name, folder in FOLDERS.items():
        recs = by_folder.get(name, [])
        lines.append(_summary_row(name, folder.ci, [folder_result(rec)[0] for rec in recs]))
    lines += [f"| {name} | covered by {where} | | | | | | |" for name, where in ELSEWHERE.items()]
    lines += [
        "",
        "## ops",
        "",
        f"**{counts['pass']} of {TOTAL_FILES} files pass at their device counts** (lazy); "
        f"{counts['fail']} fail; {counts['skipped upstream']} skip every test upstream (not"
        f" counted as passing); {counts['needs 2 nodes']} have tests for 2 nodes only"
        + (f"; {missing} not run at every count yet" if missing else "")
        + f". Eager (`eager` column: result, tests run, seconds): {len(eager_run)} files run"
        + f", {eager_counts['pass']} pass, {eager_counts['fail']} fail,"
        f" {eager_counts['known cause']} fail with a known cause (`suite.py`),"
        f" {eager_counts['skipped upstream']} skip every test upstream.",
        "",
        "A file passes when it passes at every device count where a test of it runs. A cell",
        "shows the outcome and the number of tests that ran unskipped at that count; `skip`:",
        "every test skipped itself there; `-`: the file has no tests for that count. 2-node",
        "classes (`skip_unless_2n<N>d`) cannot run on one machine and are marked `not run`.",
        "",
        "| file | 1 device | 2 devices | 4 devices | 2 nodes | result | eager | cause / note |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for rec in sorted(records, key=lambda rec: rec.file):
        cells = [_run_cell(rec, n) for n in COUNTS]
        two = "not run" if rec.two_nodes else "-"
        eager_rec = eager_by_file.get(rec.file, FileRecord(rec.file, {}, rec.counts))
        cause = _cause(rec)
        if eager_rec.status == "fail":
            bad = eager_rec.failure()
            known = EAGER_KNOWN_FAILURES.get(rec.file)
            why = known if known and known != KNOWN_FAILURES.get(rec.file) else ""
            eager_cause = " ".join(filter(None, [why, f"(`{bad.error or 'unknown'}`)"]))
            cause = "; ".join(filter(None, [cause, f"eager: {eager_cause}"]))
        lines.append(
            f"| {rec.file} | {' | '.join(cells)} | {two} | {rec.status} | "
            f"{_eager_cell(eager_rec)} | {_cell(cause)} |"
        )
    for name, folder in FOLDERS.items():
        recs = sorted(by_folder.get(name, []), key=lambda rec: rec.file)
        if not recs:
            continue
        script = folder.kind == "script"
        lines += [
            "",
            f"## {name}",
            "",
            f"{folder.ci}{'; eager mode' if folder.eager else ''}.",
            "",
            "| file | 1 device | 2 devices | 4 devices | result | cause / note |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for rec in recs:
            cells = [_run_cell(rec, n, script) for n in COUNTS]
            result, cause = folder_result(rec)
            lines.append(
                f"| {rec.file.split('/', 1)[1]} | {' | '.join(cells)} | {result} | {_cell(cause)} |"
            )
    path.write_text("\n".join(lines) + "\n")
