"""The OneFlow suite runs only when asked: ``FLOWJOB_ONEFLOW_SUITE=1`` or ``-m oneflow_suite``,
and only with a OneFlow clone (``FLOWJOB_ONEFLOW_SRC``), whose v0.4.0 test files it runs
through ``flowjob run``; without one each test skips with the line saying how to get it."""

import os

import pytest

from tests.upstream import ONEFLOW, UpstreamError

from ._run import oneflow_test_files, ops_folder, tests_tree
from .folders import FOLDERS, folder_files


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


@pytest.fixture(scope="session")
def oneflow_tree(oneflow_ops):
    """The extracted ``oneflow/python/test`` of the clone (``ops/``'s parent)."""
    return oneflow_ops.parent


def _wanted(config) -> bool:
    return os.environ.get("FLOWJOB_ONEFLOW_SUITE") == "1" or "oneflow_suite" in (
        config.getoption("markexpr") or ""
    ).replace("not oneflow_suite", "")


def pytest_generate_tests(metafunc):
    """One test per file of the clone's folder, named after it; without a clone (or when the
    suite is not asked for) one placeholder that the ``oneflow_ops`` fixture skips."""
    for fixture, listing in (("oneflow_file", _ops_files), ("oneflow_entry", _folder_entries)):
        if fixture not in metafunc.fixturenames:
            continue
        names = ["no-clone"]
        if _wanted(metafunc.config) and ONEFLOW.clone() is not None:
            try:
                names = listing()
            except UpstreamError:
                pass  # the oneflow_ops fixture reports it
        metafunc.parametrize(fixture, names)


def _ops_files() -> list[str]:
    return oneflow_test_files(ops_folder())


def _folder_entries() -> list[str]:
    """Every file of the tree's other folders (``folder/name``), e.g. ``xrt/test_add.py``."""
    root = tests_tree()
    return [entry for folder in FOLDERS for entry in folder_files(root, folder)]
