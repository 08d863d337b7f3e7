"""Every op test starts and ends with a fresh default session (the root ``fresh_session``)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _every_test_in_a_fresh_session(fresh_session) -> None:
    """Applies the root ``fresh_session`` to each test of this folder."""
