"""Fixtures of the ecosystem runner's tests."""

import pytest

from .program import Program


def clone_or_skip(program: Program) -> None:
    """Skips (the same line for every program of a repository, so that ``pytest -rs`` shows
    one line per missing clone) unless the program's clones are named."""
    for upstream in (program.repo, *(u for u, _ in program.requires)):
        if upstream.clone() is None:
            pytest.skip(upstream.missing_line())
