"""The OneFlow suite runs only when asked: ``FLOWJOB_ONEFLOW_SUITE=1`` or ``-m oneflow_suite``.

``ops/`` holds OneFlow's own files, verbatim: pytest never collects them directly (they need
the ``oneflow`` alias and TensorFlow); ``test_oneflow_v040.py`` runs each through ``flowjob run``.
"""

import os

import pytest

collect_ignore_glob = ["ops/*"]


def pytest_collection_modifyitems(config, items):
    wanted = os.environ.get("FLOWJOB_ONEFLOW_SUITE") == "1" or "oneflow_suite" in (
        config.getoption("markexpr") or "").replace("not oneflow_suite", "")
    if wanted:
        return
    skip = pytest.mark.skip(reason="OneFlow's op tests: set FLOWJOB_ONEFLOW_SUITE=1 to run them")
    for item in items:
        if "oneflow_suite" in item.keywords:
            item.add_marker(skip)
