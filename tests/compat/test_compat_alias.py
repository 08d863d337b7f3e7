"""The oneflow import alias (flowjob.compat): import forms, identity, missing names, scoping."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types

import pytest

import flowjob
import flowjob.typing
from flowjob import compat
from flowjob.compat import MissingOneFlowAPI, MissingOneFlowModule, MissingOneFlowName


@pytest.fixture
def alias():
    assert not compat.is_installed()
    with compat.aliased():
        yield
    assert not compat.is_installed()


def _oneflow_modules() -> list[str]:
    return [n for n in sys.modules if n == "oneflow" or n.startswith("oneflow.")]


def test_no_package_named_oneflow_outside_the_alias():
    assert importlib.util.find_spec("oneflow") is None
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("oneflow")


def test_all_documented_import_forms_give_flowjob(alias):
    import oneflow as flow
    import oneflow.compatible.single_client.typing as tp3
    import oneflow.typing as tp
    from oneflow.compatible import single_client as flow2
    from oneflow.compatible.single_client import typing as tp2
    from oneflow.typing import Numpy

    for module in (flow, flow2):
        assert module.global_function is flowjob.global_function
        assert module.FixedTensorDef is flowjob.FixedTensorDef
        assert module.float is flowjob.float
    for module in (tp, tp2, tp3):
        assert module.Numpy is flowjob.typing.Numpy
        assert module.Callback is flowjob.typing.Callback
    assert Numpy is flowjob.typing.Numpy
    # One alias module per OneFlow name, whichever way it was reached.
    assert flow.typing is tp is sys.modules["oneflow.typing"]
    assert flow2.typing is tp2 is tp3 is sys.modules["oneflow.compatible.single_client.typing"]
    assert flow.__name__ == "oneflow" and tp.__name__ == "oneflow.typing"


def test_submodules_are_aliases_named_after_oneflow(alias):
    import oneflow as flow
    import oneflow.summary

    assert flow.summary is oneflow.summary
    assert flow.summary.__name__ == "oneflow.summary"
    assert flow.summary.scalar is flowjob.summary.scalar
    assert flow.train.CheckPoint is flowjob.train.CheckPoint
    assert flow.optimizer.SGD is flowjob.optimizer.SGD
    assert flow.config.enable_debug_mode is flowjob.config.enable_debug_mode
    assert flow.__version__ == flowjob.__version__
    assert "global_function" in dir(flow)
    assert "oneflow" in repr(flow) and "flowjob" in repr(flow)


def test_attributes_are_live_not_copied(alias, monkeypatch):
    import oneflow as flow

    marker = object()
    monkeypatch.setattr(flowjob, "_compat_test_marker", marker, raising=False)
    assert flow._compat_test_marker is marker


def test_missing_attribute_names_the_oneflow_api(alias):
    import oneflow as flow

    with pytest.raises(
        MissingOneFlowAPI,
        match=r"^oneflow\.no_such_op is not provided by "
        r"flowjob$",
    ) as info:
        flow.no_such_op(1)
    assert isinstance(info.value, AttributeError)
    assert isinstance(info.value, MissingOneFlowName)
    assert info.value.oneflow_name == "oneflow.no_such_op"
    assert not hasattr(flow, "no_such_op")
    assert getattr(flow.summary, "no_such_summary", None) is None
    with pytest.raises(MissingOneFlowAPI, match=r"oneflow\.summary\.no_such_summary is not"):
        flow.summary.no_such_summary  # noqa: B018


def test_missing_attribute_suggests_a_close_name(alias):
    from oneflow.compatible import single_client as flow

    with pytest.raises(MissingOneFlowAPI) as info:
        flow.global_functon  # noqa: B018
    assert str(info.value) == (
        "oneflow.compatible.single_client.global_functon is not provided "
        "by flowjob (did you mean "
        "oneflow.compatible.single_client.global_function?)"
    )


def test_missing_module_names_the_oneflow_module(alias):
    with pytest.raises(
        MissingOneFlowModule,
        match=r"^oneflow\.core\.operator\.nothing_pb2 is not provided by flowjob",
    ):
        importlib.import_module("oneflow.core.operator.nothing_pb2")
    with pytest.raises(MissingOneFlowModule, match=r"oneflow\.typing\.Nothing is not provided"):
        exec("from oneflow.typing import Nothing", {})
    with pytest.raises(MissingOneFlowModule, match=r"oneflow\.compatible\.multi_client is not"):
        importlib.import_module("oneflow.compatible.multi_client")
    with pytest.raises(ImportError):  # the ordinary except clause still catches it
        importlib.import_module("oneflow.python.framework.no_such_util")


def test_star_import_exports_public_flowjob_names(alias):
    namespace: dict = {}
    exec("from oneflow import *", namespace)
    assert namespace["global_function"] is flowjob.global_function
    assert not any(name.startswith("_") for name in namespace if name != "__builtins__")


def test_uninstall_removes_finder_and_alias_modules():
    with compat.aliased():
        import oneflow  # noqa: F401
        import oneflow.typing  # noqa: F401

        assert {"oneflow", "oneflow.typing"} <= set(_oneflow_modules())
    assert _oneflow_modules() == []
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("oneflow")


def test_nested_installs_are_counted():
    compat.install()
    try:
        with compat.aliased():
            importlib.import_module("oneflow")
        assert compat.is_installed()
        assert importlib.import_module("oneflow.typing").Numpy is flowjob.typing.Numpy
    finally:
        compat.uninstall()
    assert not compat.is_installed() and _oneflow_modules() == []


def test_a_real_oneflow_module_is_set_aside_and_restored(monkeypatch):
    fake = types.ModuleType("oneflow")
    monkeypatch.setitem(sys.modules, "oneflow", fake)
    with compat.aliased():
        import oneflow

        assert oneflow is not fake and oneflow.watch is flowjob.watch
    assert sys.modules["oneflow"] is fake


def test_alias_modules_held_by_a_program_keep_working_after_uninstall():
    with compat.aliased():
        import oneflow as flow
    # A callback running after the run may still touch attributes and submodules.
    assert flow.watch is flowjob.watch
    assert flow.data.load_mnist is flowjob.data.load_mnist
    assert flow.data is flow.data and flow.data.__name__ == "oneflow.data"
    assert _oneflow_modules() == []
