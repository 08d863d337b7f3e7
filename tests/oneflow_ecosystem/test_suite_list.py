"""The ecosystem list itself: names, causes and the results table agree, and (with the
clones) every listed program exists at its pinned commit."""

import re

import pytest

from tests.upstream import git

from .conftest import clone_or_skip
from .results import RESULTS, read_rows, tally
from .suite import EXCLUDED, PROGRAMS


def test_program_names_are_unique_and_causes_say_what_stops_them():
    names = [p.name for p in PROGRAMS]
    assert len(names) == len(set(names))
    for program in PROGRAMS:
        if program.known is not None:
            assert program.known.detail and re.compile(program.known.marker)
        assert not (program.covered_by and program.args), program.name
    excluded = {(u.name, path) for u, path, _ in EXCLUDED}
    assert not excluded & {(p.repo.name, p.script) for p in PROGRAMS}


def test_results_table_has_one_row_per_program_and_its_counts():
    rows = read_rows()
    assert set(rows) == {p.name for p in PROGRAMS}, "run python -m tests.oneflow_ecosystem"
    total, passing, named, repos = tally(list(rows.values()))
    text = RESULTS.read_text(encoding="utf-8")
    assert (
        f"{total} programs from {repos} repositories: {passing} pass, {named} stop at a "
        f"named cause, {total - passing - named} fail." in text
    )


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_program_exists_at_its_commit(program):
    clone_or_skip(program)
    root = program.repo.clone()
    listed = git(root, "ls-tree", "--name-only", program.repo.revision, "--", program.script)
    assert listed.strip() == program.script
