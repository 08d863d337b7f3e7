"""``oneflow.unittest``: OneFlow's test-case base, machine-shape skips and test environment."""

from __future__ import annotations

import unittest

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob import compat
from flowjob._src.runtime import default_session


def _run_case(case_class: type) -> unittest.TestResult:
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(case_class).run(result)
    return result


def test_each_test_starts_from_a_fresh_default_session():
    sessions = []

    class Case(flow.unittest.TestCase):
        def test_a(self):
            sessions.append(default_session())

        def test_b(self):
            sessions.append(default_session())

    before = default_session()
    result = _run_case(Case)
    assert result.wasSuccessful() and result.testsRun == 2
    assert len({id(s) for s in [before, *sessions]}) == 3


def test_a_job_name_can_be_reused_by_the_next_test():
    outputs = []

    class Case(flow.unittest.TestCase):
        def _job(self, k):
            @flow.global_function()
            def Job(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
                return x * k

            outputs.append(Job(np.ones(2, np.float32)))

        def test_a(self):
            self._job(2.0)

        def test_b(self):
            self._job(3.0)

    assert _run_case(Case).wasSuccessful()
    np.testing.assert_allclose(sorted(o[0] for o in outputs), [2.0, 3.0])


@pytest.mark.parametrize("devices, runs", [(None, "1n1d"), ("2", "1n2d"), ("4", "1n4d")])
def test_skip_unless_follows_oneflow_test_device_num(monkeypatch, devices, runs):
    if devices is None:
        monkeypatch.delenv("ONEFLOW_TEST_DEVICE_NUM", raising=False)
    else:
        monkeypatch.setenv("ONEFLOW_TEST_DEVICE_NUM", devices)
    monkeypatch.delenv("ONEFLOW_TEST_NODE_LIST", raising=False)
    ran = []
    for shape in ("1n1d", "1n2d", "1n4d", "2n1d", "2n2d", "2n4d"):
        decorator = getattr(flow.unittest, f"skip_unless_{shape}")()

        @decorator
        class Case(flow.unittest.TestCase):
            def test(self, shape=shape):
                ran.append(shape)

        result = _run_case(Case)
        assert len(result.skipped) == (0 if shape == runs else 1)
    assert ran == [runs]


def test_node_list_sets_the_node_count(monkeypatch):
    monkeypatch.setenv("ONEFLOW_TEST_NODE_LIST", "10.0.0.1,10.0.0.2")
    assert flow.unittest.env.node_size() == 2
    assert flow.unittest.env.node_list() == ["10.0.0.1", "10.0.0.2"]
    monkeypatch.delenv("ONEFLOW_TEST_NODE_LIST")
    assert flow.unittest.env.node_size() == 1 and not flow.unittest.env.has_node_list()


def test_bad_device_num_is_named(monkeypatch):
    monkeypatch.setenv("ONEFLOW_TEST_DEVICE_NUM", "two")
    with pytest.raises(ValueError, match="ONEFLOW_TEST_DEVICE_NUM.*'two'"):
        flow.unittest.env.device_num()


def test_eager_mode_follows_oneflows_variable(monkeypatch):
    monkeypatch.delenv("ONEFLOW_TEST_ENABLE_EAGER", raising=False)
    assert flow.unittest.env.eager_execution_enabled() is False
    monkeypatch.setenv("ONEFLOW_TEST_ENABLE_EAGER", "true")  # OneFlow accepts only "1"
    assert flow.unittest.env.eager_execution_enabled() is False
    monkeypatch.setenv("ONEFLOW_TEST_ENABLE_EAGER", "1")
    assert flow.unittest.env.eager_execution_enabled() is True


def test_reached_through_the_oneflow_alias():
    with compat.aliased():
        import oneflow as oflow
        import oneflow.unittest

        assert oneflow.unittest.TestCase is flow.unittest.TestCase
        assert oflow.unittest.env.device_num is flow.unittest.env.device_num
        marked = oflow.unittest.num_nodes_required(2)(lambda: None)
        assert marked.__oneflow_test_case_num_nodes_required__ == 2


def test_test_case_starts_in_the_mode_the_run_asks_for(monkeypatch):
    class Case(flow.unittest.TestCase):
        def runTest(self):  # noqa: N802 - unittest's name
            pass

    try:
        monkeypatch.setenv("ONEFLOW_TEST_ENABLE_EAGER", "1")
        Case().setUp()
        assert flow.eager_execution_enabled() is True
        monkeypatch.delenv("ONEFLOW_TEST_ENABLE_EAGER")
        Case().setUp()
        assert flow.eager_execution_enabled() is False
    finally:
        flow.clear_default_session()
        flow.enable_eager_execution(False)
