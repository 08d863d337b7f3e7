"""The OneFlow suite runs only when asked: ``FLOWJOB_ONEFLOW_SUITE=1`` or ``-m oneflow_suite``,
and only with a OneFlow clone (``FLOWJOB_ONEFLOW_SRC``), whose v0.4.0 test files it runs
through ``flowjob run``; without one each test skips with the line saying how to get it."""

import os

import pytest

from tests.upstream import ONEFLOW, UpstreamError

from ._run import oneflow_test_files, ops_folder


def pytest_collection_modifyitems(config, items):
    if _wanted(config):
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


def _wanted(config) -> bool:
    return os.environ.get("FLOWJOB_ONEFLOW_SUITE") == "1" or "oneflow_suite" in (
        config.getoption("markexpr") or ""
    ).replace("not oneflow_suite", "")


def pytest_generate_tests(metafunc):
    """One test per file of the clone's folder, named after it; without a clone (or when the
    suite is not asked for) one placeholder that the ``oneflow_ops`` fixture skips."""
    if "oneflow_file" not in metafunc.fixturenames:
        return
    names = ["no-clone"]
    if _wanted(metafunc.config) and ONEFLOW.clone() is not None:
        try:
            names = oneflow_test_files(ops_folder())
        except UpstreamError:
            pass  # the oneflow_ops fixture reports it
    metafunc.parametrize("oneflow_file", names)
