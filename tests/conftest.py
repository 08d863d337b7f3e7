"""Fixtures shared by every test folder.

``fresh_session`` gives a test an empty default session and clears it again afterwards (and
turns eager mode off), so no job, variable, pending error or eager mode leaks from one test
into the next. It yields the ``flowjob`` module (imported here, not at collection, so folders
that never start a session stay free of JAX). Modules that want it for every test say
``pytestmark = pytest.mark.usefixtures("fresh_session")``; ``tests/ops`` applies it to the
whole folder in its own conftest.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from types import ModuleType

import pytest

from tests.timeouts import scaled

# A test's convolution kernels must not depend on how loaded the machine was when they were
# timed: the suite uses the fixed rule (inherited by the programs it starts); the measured
# choice has its own tests (tests/kernels/test_conv_choice.py).
os.environ.setdefault("FLOWJOB_CONV_KERNEL", "rule")

# A runner started in the background without job control (`nohup ... &` in a script) inherits
# SIGINT ignored, and so would every program the tests start: the Ctrl-C tests would wait
# forever for an interrupt that never comes. Tests play a user at a terminal: Python's default.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def fresh_session() -> Iterator[ModuleType]:
    import flowjob as flow

    flow.clear_default_session()
    yield flow
    flow.clear_default_session()
    flow.enable_eager_execution(False)  # the mode outlives sessions (as in OneFlow)


# What a user watching the run sees: a line per test folder as the run reaches it (the dots
# alone do not say where a long run is), and, at the end, the slowest tests
# (``--durations=15`` in pyproject.toml).
_FOLDERS: dict[str, int] = {}


def _folder(nodeid: str) -> str:
    path = nodeid.split("::", 1)[0]
    return path.rsplit("/", 1)[0] if "/" in path else path


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:

    _FOLDERS.clear()
    for item in items:
        _FOLDERS[_folder(item.nodeid)] = _FOLDERS.get(_folder(item.nodeid), 0) + 1
        # pytest-timeout's bound for one test (ini `timeout`) grows with the load, as the
        # tests' own waits do (tests/timeouts.py).
        if item.get_closest_marker("timeout") is None and config.getini("timeout"):
            item.add_marker(pytest.mark.timeout(scaled(float(config.getini("timeout")))))


_seen_folder: list[str] = []


def pytest_runtest_logstart(nodeid: str, location: tuple) -> None:
    folder = _folder(nodeid)
    if _seen_folder and _seen_folder[-1] == folder:
        return
    _seen_folder.append(folder)
    reporter = _reporter()
    if reporter is not None and folder in _FOLDERS:
        index = list(_FOLDERS).index(folder) + 1
        reporter.ensure_newline()
        reporter.write_line(
            f"[{index}/{len(_FOLDERS)}] {folder}: {_FOLDERS[folder]} tests", bold=True
        )


_config: list[pytest.Config] = []


def pytest_configure(config: pytest.Config) -> None:
    _config[:] = [config]


def _reporter():
    return _config[0].pluginmanager.get_plugin("terminalreporter") if _config else None
