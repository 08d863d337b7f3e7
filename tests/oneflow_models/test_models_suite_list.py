"""suite.py lists every test of OneFlow's ``test/models`` (checked against the clone; cheap,
so it runs with the normal tests whenever a clone is named)."""

import ast

import pytest

from tests.upstream import ONEFLOW

from ._run import models_folder
from .suite import CASES, Need


def _module_tests(path):
    """(function name, nodes required) of a file's module-level ``test*`` functions."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            nodes = 1
            for deco in node.decorator_list:
                if isinstance(deco, ast.Call) and getattr(deco.func, "attr", "") == (
                    "num_nodes_required"
                ):
                    nodes = deco.args[0].value
            yield node.name, nodes


@pytest.mark.skipif(ONEFLOW.clone() is None, reason=ONEFLOW.missing_line())
def test_every_test_function_of_the_folder_is_a_case():
    models = models_folder()
    found = {
        (path.name, name, nodes)
        for path in models.glob("test*.py")
        for name, nodes in _module_tests(path)
    }
    listed = {
        (c.file, c.selector.split(".")[-1], 2 if c.need is Need.TWO_MACHINES else 1)
        for c in CASES
        if c.file != "cnns_tests.py"
    }
    assert found == listed


@pytest.mark.skipif(ONEFLOW.clone() is None, reason=ONEFLOW.missing_line())
def test_every_cnn_class_is_listed_for_each_node_count():
    models = models_folder()
    classes = {
        node.name
        for node in ast.parse((models / "cnns_tests.py").read_text()).body
        if isinstance(node, ast.ClassDef)
        and node.name.endswith("Mixin")
        and node.name != "TestNetMixin"
    }
    listed = {c.selector for c in CASES if c.file == "cnns_tests.py"}
    expected = {
        f"{cls[: -len('Mixin')]}.test_{n}" for cls in classes for n in ("1n1c", "1n4c", "2n8c")
    }
    assert listed == expected
