"""What every parity table's test checks of its rows, and the mark of tests that need a clone."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.upstream import ONEFLOW

needs_clone = pytest.mark.skipif(ONEFLOW.clone() is None, reason=ONEFLOW.missing_line())


def assert_rows_pass_or_are_known(rows: list, known: ModuleType, at_least: int) -> dict:
    """No row fails; ``known``'s lists (KNOWN: path -> reason key, FIXED, REASONS) cannot go
    stale: a known difference still differs, a fixed row still passes, every reason is used.
    Returns the rows by path."""
    assert len(rows) > at_least
    failing = [(r.path, r.problems) for r in rows if r.status == "fail"]
    assert failing == []
    by_path = {r.path: r for r in rows}
    assert [p for p in known.KNOWN if not by_path[p].problems] == []
    assert [p for p in known.FIXED if by_path[p].problems] == []
    assert set(known.KNOWN.values()) == set(known.REASONS)
    return by_path
