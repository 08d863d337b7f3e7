"""``RESULTS.md``: one row per program of the suite, written by the runner."""

from __future__ import annotations

import re
from pathlib import Path

from ._run import Outcome
from .program import Program

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
HEADER = (
    "| program | repository@commit | result | seconds | cause |",
    "|---|---|---|---|---|",
)
_ROW = re.compile(r"^\| `([^`]+)` \|")


def row(outcome: Outcome) -> str:
    program = outcome.program
    result = {
        "pass": "pass",
        "cause": program.known.cause.value if program.known else "",
        "fail": "fail",
        "no clone": "not run (no clone)",
    }[outcome.status]
    if outcome.status == "cause":
        cause = program.known.detail
    elif outcome.status == "fail":
        cause = outcome.detail
    else:
        cause = ""
    if program.covered_by and outcome.status == "pass":
        cause = f"run by `{program.covered_by}`"
    elif outcome.status == "pass" and outcome.detail:
        cause = outcome.detail
    cells = (
        f"`{program.name}`",
        f"{program.repo.name}@{program.repo.revision[:10]}",
        result,
        f"{outcome.seconds:.0f}" if outcome.status != "no clone" else "",
        cause.replace("|", "/"),
    )
    return "| " + " | ".join(cells) + " |"


def read_rows(path: Path = RESULTS) -> dict[str, str]:
    """program name -> its row, from the file as it is."""
    if not path.exists():
        return {}
    rows = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        found = _ROW.match(line)
        if found:
            rows[found.group(1)] = line
    return rows


def tally(rows: list[str]) -> tuple[int, int, int, int]:
    """(programs, passing, stopped at a named cause, repositories) of the rows."""
    cells = [[c.strip() for c in r.strip("|").split("|")] for r in rows]
    passing = sum(c[2] == "pass" for c in cells)
    named = sum(c[2] not in ("pass", "fail", "not run (no clone)") for c in cells)
    repos = len({c[1] for c in cells})
    return len(cells), passing, named, repos


def write(programs: tuple[Program, ...], new: dict[str, str], path: Path = RESULTS) -> str:
    """Rewrites ``path``: the rows of ``new`` and, for programs not run now, their old rows."""
    old = read_rows(path)
    rows = [new.get(p.name) or old.get(p.name) for p in programs]
    rows = [r for r in rows if r]
    total, passing, named, repos = tally(rows)
    failing = total - passing - named
    text = "\n".join(
        [
            "# Ecosystem programs on flowjob: results",
            "",
            "Written by `python -m tests.oneflow_ecosystem` (CPU only, small generated data;",
            "see README.md). A result other than pass or fail is the cause OneFlow also needed.",
            "",
            f"{total} programs from {repos} repositories: {passing} pass, {named} stop at a "
            f"named cause, {failing} fail.",
            "",
            *HEADER,
            *rows,
            "",
        ]
    )
    path.write_text(text, encoding="utf-8")
    return text
