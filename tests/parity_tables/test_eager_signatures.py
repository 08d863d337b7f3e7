"""The eager signature table against a OneFlow v0.4.0 clone, and how it reads OneFlow's
sources (on a small git repository written here, so those tests need no clone)."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest

from flowjob._src.compat.parity import _eager_reasons as known
from flowjob._src.compat.parity import eager
from tests.parity_tables.table_checks import assert_rows_pass_or_are_known, needs_clone


@needs_clone
def test_every_eager_row_matches_or_has_a_known_reason():
    rows = eager.table()
    by_path = assert_rows_pass_or_are_known(rows, known, 300)
    # the kinds of rows the table promises are there
    for path in (
        "nn.Linear",
        "nn.Conv2d.forward",
        "nn.CrossEntropyLoss",
        "matmul",
        "sum",
        "optim.SGD",
        "optim.SGD.zero_grad",
        "optim.lr_scheduler.StepLR",
        "Tensor.sum",
        "Tensor.shape",
        "Tensor.__getitem__",
        "nn.Module.parameters",
        "autograd.grad",
        "unique_with_counts",
        "no_grad",
    ):
        assert path in by_path, path
    assert by_path["Tensor.shape"].oneflow == eager.PROPERTY
    # BatchNorm2d's constructor is _BatchNorm's, found through its bases
    assert [p.name for p in by_path["nn.BatchNorm2d"].oneflow][:2] == ["num_features", "eps"]


ONEFLOW_FILES = {
    "oneflow/python/nn/modules/layers.py": """
        @oneflow_export("nn.Base")
        @experimental_api
        class _Base(Module):
            def __init__(self, width, scale=1.0):
                pass

            def helper(self, a):
                pass

        @oneflow_export("nn.Child")
        @experimental_api
        class Child(_Base):
            def forward(self, x, y):
                pass

            def helper(self, a, b=2):  # the child's definition wins
                pass

        @register_tensor_op("double")
        @oneflow_export("double")
        @experimental_api
        def double_op(x, times=2):
            pass
    """,
    "oneflow/python/nn/modules/container.py": """
        @oneflow_export("nn.Seq")
        @experimental_api
        class Seq(Module):
            @overload
            def __init__(self, first):
                pass

            def __init__(self, *args):
                pass

            def pop(self, key):
                pass

            def pop(self, index=-1):  # redefined: the last one is the method
                pass
    """,
    "oneflow/python/framework/tensor.py": """
        @oneflow_export("Tensor")
        class Tensor:
            def __init__(self, *args):
                pass

            @property
            def shape(self):
                pass

            @shape.setter
            def shape(self, value):
                pass

            def __add__(self, other):
                pass

            def __sizeof__(self):
                pass

            def _private(self):
                pass

            def double(self):  # replaced by the register_tensor_op of nn/modules
                pass
    """,
    "oneflow/python/oneflow_export.py": """
        internal_names_2_api_names = {"autograd.no_grad": "no_grad", "Size": "Size"}
    """,
    "oneflow/python/ops/legacy.py": """
        @oneflow_export("math.legacy_only")
        def legacy_only(x):
            pass

        @oneflow_export("experimental.legacy_here")
        def legacy_here(x, name=None):
            pass
    """,
}


@pytest.fixture(scope="module")
def small_clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("oneflow")
    for rel, text in ONEFLOW_FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "files"], check=True)
    subprocess.run([*git, "tag", "v0.4.0"], check=True)
    return root


def test_exported_reads_the_rows_oneflow_defines(small_clone):
    rows = {path: (params, owner) for path, _, params, owner in eager.exported(small_clone)}

    def names(path: str) -> list[str]:
        params = rows[path][0]
        return params if params == eager.PROPERTY else [str(p) for p in params]

    assert "math.legacy_only" not in rows  # the legacy table's row
    assert names("legacy_here") == ["x", "name=None"]  # experimental. of a legacy export
    assert names("nn.Base") == ["width", "scale=1.0"]
    assert names("nn.Child") == ["width", "scale=1.0"]  # the base's constructor
    assert names("nn.Child.helper") == ["a", "b=2"]
    assert names("nn.Child.forward") == ["x", "y"] and rows["nn.Child.forward"][1] == "nn.Child"
    assert names("nn.Seq") == ["*args"]  # the constructor after the @overload one
    assert names("nn.Seq.pop") == ["index=-1"]
    assert names("double") == ["x", "times=2"]
    assert names("Tensor.shape") == eager.PROPERTY  # the setter keeps it a property
    assert names("Tensor.__add__") == ["other"]
    assert "Tensor.__sizeof__" not in rows and "Tensor._private" not in rows
    assert "Tensor" not in rows  # the constructor is a row of the legacy table
    assert rows["no_grad"] == rows["Size"] == (None, None)  # C++ objects: by name only


def test_a_registered_tensor_op_replaces_the_class_method(small_clone):
    entries = [e for e in eager.exported(small_clone) if e[0] == "Tensor.double"]
    assert [e[1] for e in entries] == ["framework/tensor.py", "nn/modules/layers.py"]
    rows = {r.path: r for r in eager.table(small_clone)}
    assert rows["Tensor.double"].source == "nn/modules/layers.py"
    assert [str(p) for p in rows["Tensor.double"].oneflow] == ["times=2"]
    assert rows["nn.Base"].problems == ["flowjob has no object at this path"]
    assert rows["nn.Base"].status == "fail"  # no reason listed for it


def test_operators_and_forward_compare_by_position_and_properties_by_kind():
    P = eager.Param
    of, mine = [P("other", eager.POSITIONAL)], [P("o", eager.POSITIONAL)]
    assert eager._compare("Tensor.__add__", of, mine, member=True) == []
    assert eager._compare("nn.Linear.forward", of, mine, member=True) == []
    assert eager._compare("Tensor.add", of, mine, member=True) != []  # names count
    assert eager._compare("nn.X.forward", of, mine + mine, member=True) != []
    assert eager._compare("Tensor.shape", eager.PROPERTY, eager.PROPERTY, member=True) == []
    assert eager._compare("Tensor.shape", eager.PROPERTY, [], member=True) == [
        "a property in OneFlow, a method in flowjob"
    ]
    assert eager._compare("Tensor.size", [], eager.PROPERTY, member=True) == [
        "a method in OneFlow, not a method in flowjob"
    ]
