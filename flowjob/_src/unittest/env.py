"""``oneflow.unittest.env``: the test machine's shape, from OneFlow's test environment variables."""

from __future__ import annotations

import os


def eager_execution_enabled() -> bool:
    """Whether the test run asks for eager mode (``ONEFLOW_TEST_ENABLE_EAGER=1``): every
    ``flow.unittest.TestCase`` then starts in eager mode, and eager-only tests run."""
    return os.getenv("ONEFLOW_TEST_ENABLE_EAGER") == "1"


def typing_check_enabled() -> bool:
    return os.getenv("ONEFLOW_TEST_ENABLE_TYPING_CHECK") == "1"


def has_node_list() -> bool:
    return bool(os.getenv("ONEFLOW_TEST_NODE_LIST"))


def node_list() -> list[str]:
    """The hosts of a multi-node test run (``ONEFLOW_TEST_NODE_LIST``, comma separated)."""
    value = os.getenv("ONEFLOW_TEST_NODE_LIST")
    if not value:
        raise RuntimeError("ONEFLOW_TEST_NODE_LIST is not set: this is a single-node test run")
    return value.split(",")


def node_size() -> int:
    return len(node_list()) if has_node_list() else 1


def has_world_size() -> bool:
    return bool(os.getenv("ONEFLOW_TEST_WORLD_SIZE"))


def world_size() -> int:
    value = os.getenv("ONEFLOW_TEST_WORLD_SIZE", "")
    if not value.isdigit():
        raise ValueError(f"ONEFLOW_TEST_WORLD_SIZE must be a number, got {value!r}")
    return int(value)


def device_num() -> int:
    """Devices per node (``ONEFLOW_TEST_DEVICE_NUM``, default 1)."""
    value = os.getenv("ONEFLOW_TEST_DEVICE_NUM")
    if not value:
        return 1
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"ONEFLOW_TEST_DEVICE_NUM must be a positive number, got {value!r}")
    return int(value)
