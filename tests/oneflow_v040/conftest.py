"""The OneFlow suite runs only when asked: ``FLOWJOB_ONEFLOW_SUITE=1`` or ``-m oneflow_suite``,
and only with a OneFlow clone (``FLOWJOB_ONEFLOW_SRC``), whose v0.4.0 test files it runs
through ``flowjob run``; without one each test skips with the line saying how to get it."""

import os

import pytest

from tests.upstream import ONEFLOW, UpstreamError

from ._run import ops_folder


def pytest_collection_modifyitems(config, items):
    wanted = os.environ.get("FLOWJOB_ONEFLOW_SUITE") == "1" or "oneflow_suite" in (
        config.getoption("markexpr") or ""
    ).replace("not oneflow_suite", "")
    if wanted:
        return
    skip = pytest.mark.skip(reason="OneFlow's op tests: set FLOWJOB_ONEFLOW_SUITE=1 to run them")
    for item in items:
        if "oneflow_suite" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def oneflow_ops():
    """The extracted ``oneflow/python/test/ops`` of the clone; skips without a clone."""
    if ONEFLOW.clone() is None:
        pytest.skip(ONEFLOW.missing_line())
    try:
        return ops_folder()
    except UpstreamError as exc:
        pytest.fail(str(exc))
