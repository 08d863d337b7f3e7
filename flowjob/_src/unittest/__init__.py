"""``oneflow.unittest``: the test-case base and device-count skips of OneFlow's own op tests.

OneFlow's test files (``oneflow/python/test/ops/``) subclass ``flow.unittest.TestCase`` and
decorate classes with ``flow.unittest.skip_unless_1n1d()`` and friends. The machine shape they
run on comes from OneFlow's test environment variables (``ONEFLOW_TEST_DEVICE_NUM``,
``ONEFLOW_TEST_NODE_LIST``), read by ``flowjob.unittest.env``; each test starts in the
execution mode ``ONEFLOW_TEST_ENABLE_EAGER`` asks for (lazy unless it is ``1``).
"""

from __future__ import annotations

import importlib.util
import os
import unittest as _std_unittest
from collections.abc import Callable
from typing import Any, TypeVar

from . import env

_F = TypeVar("_F")


class TestCase(_std_unittest.TestCase):
    """``unittest.TestCase`` whose every test starts from a fresh default session, in the
    execution mode the test run asks for (``env.eager_execution_enabled()``)."""

    def setUp(self) -> None:
        from flowjob._src.runtime import clear_default_session, enable_eager_execution

        clear_default_session()
        enable_eager_execution(env.eager_execution_enabled())


def skip_unless(num_nodes: int, num_devices: int) -> Callable[[_F], _F]:
    """A decorator that skips unless the test machine has ``num_nodes`` x ``num_devices``."""
    if env.node_size() == num_nodes and env.device_num() == num_devices:
        return lambda func: func
    return _std_unittest.skip(
        f"only runs when node_size is {num_nodes} and device_num is {num_devices}"
        f" (this run: {env.node_size()} node(s), {env.device_num()} device(s);"
        " set ONEFLOW_TEST_DEVICE_NUM / ONEFLOW_TEST_NODE_LIST)"
    )


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


def _nodes_required(func: Any) -> int:
    return getattr(func, "__oneflow_test_case_num_nodes_required__", 1)


def register_test_cases(
    scope: dict[str, Any],
    directory: str,
    filter_by_num_nodes: Callable[[int], bool],
    base_class: type[_std_unittest.TestCase] = _std_unittest.TestCase,
    test_case_mixin: type = TestCase,
) -> None:
    """OneFlow's suite builder: for each ``test*.py`` file of ``directory``, one test-case
    class named after the file in ``scope`` (a module's ``globals()``), holding the file's
    module-level ``test*`` functions whose node count (``num_nodes_required``, default 1)
    ``filter_by_num_nodes`` accepts. Each test gets a fresh default session (the mixin)."""
    for file_name in sorted(os.listdir(directory)):
        path = os.path.join(directory, file_name)
        if not (
            file_name.startswith("test") and file_name.endswith(".py") and os.path.isfile(path)
        ):
            continue
        class_name = file_name[:-3]
        spec = importlib.util.spec_from_file_location(class_name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        methods = {
            name: getattr(module, name)
            for name in dir(module)
            if name.startswith("test")
            and callable(getattr(module, name))
            and filter_by_num_nodes(_nodes_required(getattr(module, name)))
        }
        bases = (
            (test_case_mixin,)
            if issubclass(test_case_mixin, base_class)
            else (test_case_mixin, base_class)
        )
        scope[class_name] = type(class_name, bases, methods)


__all__ = [
    "TestCase",
    "env",
    "num_nodes_required",
    "register_test_cases",
    "skip_unless",
    "skip_unless_1n1d",
    "skip_unless_1n2d",
    "skip_unless_1n4d",
    "skip_unless_2n1d",
    "skip_unless_2n2d",
    "skip_unless_2n4d",
]
