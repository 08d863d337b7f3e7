"""Each program of ``suite.PROGRAMS`` run unchanged through ``flowjob run`` on its small data
(``_run.run_program``): it must pass, or stop at its named cause (a cause OneFlow also needed:
a GPU-only kernel, a C++ op library, private data). Runs when the clones' variables
(``tests/upstream.py``) are set; without a clone, its programs skip with one line."""

import pytest

from ._run import run_program
from .conftest import clone_or_skip
from .suite import PROGRAMS


@pytest.mark.slow
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_ecosystem_program(program):
    clone_or_skip(program)
    outcome = run_program(program)
    tail = outcome.output[-4000:]
    if program.known is not None:
        assert outcome.status == "cause", (
            f"{program.name} should stop at {program.known.detail}: {outcome.status} "
            f"{outcome.detail}\n{tail}"
        )
        pytest.skip(f"{program.known.cause.value}: {program.known.detail}")
    assert outcome.status == "pass", f"{program.name}: {outcome.detail}\n{tail}"
