"""Fixtures shared by every test folder.

``fresh_session`` gives a test an empty default session and clears it again afterwards (and
turns eager mode off), so no job, variable, pending error or eager mode leaks from one test
into the next. It yields the ``flowjob`` module (imported here, not at collection, so folders
that never start a session stay free of JAX). Modules that want it for every test say
``pytestmark = pytest.mark.usefixtures("fresh_session")``; ``tests/ops`` applies it to the
whole folder in its own conftest.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import pytest


@pytest.fixture
def fresh_session() -> Iterator[ModuleType]:
    import flowjob as flow

    flow.clear_default_session()
    yield flow
    flow.clear_default_session()
    flow.enable_eager_execution(False)  # the mode outlives sessions (as in OneFlow)
