"""A goal row's measured value is written with as many digits as it takes to read on the
side of its target that the row's verdict says (3 significant digits otherwise)."""

from __future__ import annotations

import pytest

from bench._report import goal_rows
from bench._sections import Section, goal, shown


@pytest.mark.parametrize(
    "value, op, target, text",
    [
        (1.19949, ">=", 1.2, "1.199"),  # not met: never "1.2"
        (1.2004, ">=", 1.2, "1.2"),  # met, and 3 digits say so
        (0.9496, ">=", 0.95, "0.9496"),
        (1.2004, "<=", 1.2, "1.2004"),  # not met the other way
        (15.83, ">=", 5, "15.8"),
        (0.0, "<=", 0, "0"),
    ],
)
def test_the_value_reads_on_its_verdicts_side_of_the_target(value, op, target, text):
    g = goal("x", value, op, target)
    assert shown(g) == text
    met = float(text) >= target if op == ">=" else float(text) <= target
    assert met == g.met


def test_the_goal_table_uses_it():
    section = Section("t", "", [goal("LeNet / PyTorch", 1.19949, ">=", 1.2)], name="train")
    (row,) = goal_rows(section)
    assert row[1:4] == ["1.199", ">= 1.2", "**NOT met**"]
