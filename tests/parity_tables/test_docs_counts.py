"""docs/guides/migrating.md shows the parity tables' counts as a OneFlow v0.4.0 clone gives
them (scripts/parity_tables.py writes the section)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from flowjob._src.compat.parity import eager, report
from tests.upstream import ONEFLOW

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "guides" / "migrating.md"


@pytest.mark.skipif(ONEFLOW.clone() is None, reason=ONEFLOW.missing_line())
def test_the_page_shows_the_counts_the_clone_gives():
    page = PAGE.read_text()
    assert report.replace_section(page, report.section()) == page
    rows = eager.counts(eager.table())
    shown = f"| {rows['match']} | {rows['fixed']} | {rows['reason']} | {rows['fail']} |"
    assert f"eager API** (`import oneflow.experimental as flow`): {sum(rows.values())} rows" in (
        " ".join(page.split())
    )
    assert shown in page and rows["fail"] == 0
    done = subprocess.run(
        [sys.executable, "scripts/parity_tables.py", "--check"], cwd=ROOT, capture_output=True
    )
    assert done.returncode == 0, done.stderr.decode()


def test_replace_section_replaces_only_between_the_markers():
    page = f"intro\n\n{report.START}\nold\n{report.END}\noutro\n"
    new = f"{report.START}\nnew\n{report.END}"
    assert report.replace_section(page, new) == f"intro\n\n{new}\noutro\n"
    assert report.replace_section("intro\n", new) == f"intro\n\n{new}\n"
