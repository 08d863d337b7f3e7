"""OneFlow v0.4.0's own op tests, each file run unchanged through ``flowjob run``.

Marked ``oneflow_suite`` and skipped unless ``FLOWJOB_ONEFLOW_SUITE=1`` (they need TensorFlow
from the ``oneflow-tests`` extra and take minutes), and skipped without a OneFlow clone
(``FLOWJOB_ONEFLOW_SRC``), from which the files are read. A file listed with a known cause in
``suite.py`` is an expected failure; one that passes unexpectedly is reported as XPASS.
"""

import importlib.util

import pytest

from ._run import run_file
from .suite import CPU_ONLY, SUITE

pytestmark = pytest.mark.oneflow_suite


@pytest.mark.parametrize("name", sorted(SUITE))
def test_oneflow_file(name, oneflow_ops):
    if importlib.util.find_spec("tensorflow") is None:
        pytest.fail("TensorFlow is missing: pip install -e '.[oneflow-tests]'")
    result = run_file(name, oneflow_ops, timeout=600, cpu_only=name in CPU_ONLY)
    known = SUITE[name]
    if result.status in ("fail", "timeout"):
        tail = result.output[-4000:]
        if known:
            pytest.xfail(f"{known}: {result.error}")
        pytest.fail(f"{name}: {result.error}\n{tail}")
    if result.status == "pass" and known:
        pytest.fail(f"{name} passes now: remove its known cause from suite.py ({known})")
