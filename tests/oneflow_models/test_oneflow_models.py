"""OneFlow v0.4.0's model tests, each run alone through ``flowjob run`` (see suite.py).

Opt-in like the op suite (``FLOWJOB_ONEFLOW_SUITE=1`` or ``-m oneflow_suite``) and read from
a OneFlow clone (``FLOWJOB_ONEFLOW_SRC``). A case that needs no private data must pass (or
fail with its known cause, as an xfail); one that reads OneFlow's ``/dataset`` must get that
far, failing only where it opens the missing data; two-machine cases are listed as skips.
"""

import pytest

from ._run import run_case
from .suite import CASES, Need

pytestmark = pytest.mark.oneflow_suite


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_oneflow_model_case(case, oneflow_models):
    if case.need is Need.TWO_MACHINES:
        pytest.skip(f"{case.file}: {case.need.value}")
    outcome = run_case(case, oneflow_models)
    tail = outcome.output[-4000:]
    if case.need is Need.PRIVATE_DATA:
        assert outcome.status == "data", f"expected to stop at {case.data}: {outcome.error}\n{tail}"
        pytest.skip(f"{case.file}: {case.need.value} ({case.data}); ran up to reading it")
    if outcome.status == "pass" and case.known:
        pytest.fail(f"{case.name} passes now: remove its known cause from suite.py")
    if outcome.status != "pass":
        if case.known:
            pytest.xfail(f"{case.known}: {outcome.error}")
        pytest.fail(f"{case.name}: {outcome.error}\n{tail}")
