"""tests/README.md's coverage table stays true: every test it names exists, and it has a row
for each OneFlow v0.4.0 op-test file the suite lists (tests/oneflow_v040/suite.py)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.oneflow_v040.suite import LISTED

REPO = Path(__file__).resolve().parents[2]
README = REPO / "tests" / "README.md"


def references(cell: str) -> list[tuple[str, str | None]]:
    """``path::test`` references of a table cell; ``::test`` alone reuses the last path."""
    found, current = [], None
    for ref in re.findall(r"`([^`]+)`", cell):
        if ref.startswith("::"):
            found.append((current, ref[2:]))
        elif ref.startswith("tests/"):
            current, _, name = ref.partition("::")
            found.append((current, name or None))
    return found


def table_rows() -> list[list[str]]:
    return [
        line.split(" | ")
        for line in README.read_text().splitlines()
        if line.startswith("| ") and "tests/" in line
    ]


def test_every_named_test_exists():
    checked = 0
    for cells in table_rows():
        for path, name in references(cells[-1]):
            target = REPO / path
            assert target.exists(), f"{path} (row {cells[0]})"
            if name:
                name = name.split("[")[0]
                assert re.search(rf"^def {re.escape(name)}\(", target.read_text(), re.M), (
                    f"{path}::{name} (row {cells[0]})"
                )
            checked += 1
    assert checked > 150


def test_one_row_per_listed_oneflow_file():
    files = [cells[0] for cells in table_rows() if re.match(r"\| `test_\w+\.py`$", cells[0])]
    assert len(files) == len(set(files))
    assert {f.strip("| `") for f in files} == set(LISTED)  # the suite's list, no more, no less
