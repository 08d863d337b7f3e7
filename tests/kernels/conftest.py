"""Fixtures of the kernel tests."""

from __future__ import annotations

import pytest

from flowjob._src.kernels import _choice


@pytest.fixture
def measure_policy(monkeypatch, tmp_path):
    """The ``measure`` policy with decisions kept in an empty file of their own and none in
    memory; returns that file's path."""
    monkeypatch.setenv("FLOWJOB_CONV_KERNEL", "measure")
    monkeypatch.setenv("FLOWJOB_CONV_KERNEL_FILE", str(tmp_path / _choice.FILE_NAME))
    monkeypatch.setattr(_choice, "_decisions", {})
    monkeypatch.setattr(_choice, "_announced", [])
    return tmp_path / _choice.FILE_NAME
