"""``oneflow.unittest``: the test-case base and device-count skips of OneFlow's own op tests.

OneFlow's test files (``oneflow/python/test/ops/``) subclass ``flow.unittest.TestCase`` and
decorate classes with ``flow.unittest.skip_unless_1n1d()`` and friends. The machine shape they
run on comes from OneFlow's test environment variables (``ONEFLOW_TEST_DEVICE_NUM``,
``ONEFLOW_TEST_NODE_LIST``), read by ``flowjob.unittest.env``. flowjob has no eager mode, so
``env.eager_execution_enabled()`` is always false and eager-only tests skip themselves.
"""

from __future__ import annotations

import unittest as _std_unittest
from collections.abc import Callable
from typing import Any, TypeVar

from . import env

_F = TypeVar("_F")


class TestCase(_std_unittest.TestCase):
    """``unittest.TestCase`` whose every test starts from a fresh default session."""

    def setUp(self) -> None:
        from flowjob.runtime import clear_default_session, enable_eager_execution

        clear_default_session()
        enable_eager_execution(False)


def skip_unless(num_nodes: int, num_devices: int) -> Callable[[_F], _F]:
    """A decorator that skips unless the test machine has ``num_nodes`` x ``num_devices``."""
    if env.node_size() == num_nodes and env.device_num() == num_devices:
        return lambda func: func
    return _std_unittest.skip(
        f"only runs when node_size is {num_nodes} and device_num is {num_devices}"
        f" (this run: {env.node_size()} node(s), {env.device_num()} device(s);"
        " set ONEFLOW_TEST_DEVICE_NUM / ONEFLOW_TEST_NODE_LIST)")


def skip_unless_1n1d() -> Callable[[_F], _F]:
    return skip_unless(1, 1)


def skip_unless_1n2d() -> Callable[[_F], _F]:
    return skip_unless(1, 2)


def skip_unless_1n4d() -> Callable[[_F], _F]:
    return skip_unless(1, 4)


def skip_unless_2n1d() -> Callable[[_F], _F]:
    return skip_unless(2, 1)


def skip_unless_2n2d() -> Callable[[_F], _F]:
    return skip_unless(2, 2)


def skip_unless_2n4d() -> Callable[[_F], _F]:
    return skip_unless(2, 4)


def num_nodes_required(num_nodes: int) -> Callable[[_F], _F]:
    """Marks a test function with the number of nodes it needs (read by OneFlow's runners)."""

    def mark(func: Any) -> Any:
        func.__oneflow_test_case_num_nodes_required__ = num_nodes
        return func

    return mark


__all__ = [
    "TestCase", "env", "num_nodes_required", "skip_unless", "skip_unless_1n1d",
    "skip_unless_1n2d", "skip_unless_1n4d", "skip_unless_2n1d", "skip_unless_2n2d",
    "skip_unless_2n4d",
]
