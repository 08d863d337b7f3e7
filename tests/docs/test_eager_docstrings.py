"""Every docstring example of the eager API's packages (``autograd``, ``imperative``,
``tensor_ops``, ``nn_modules``, ``optim``) runs and passes, as pytest's doctests would."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import flowjob

PACKAGES = ["autograd", "imperative", "tensor_ops", "nn_modules", "optim"]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _modules() -> list[str]:
    names = []
    for package in PACKAGES:
        module = importlib.import_module(f"flowjob._src.{package}")
        names.append(module.__name__)
        names += [m.name for m in pkgutil.iter_modules(module.__path__, module.__name__ + ".")]
    return names


def _examples() -> list[doctest.DocTest]:
    found = []
    for name in _modules():
        module = importlib.import_module(name)
        for test in doctest.DocTestFinder().find(module, name, globs={}):
            if test.examples and test.name.startswith(name):
                found.append(test)
    return found


EXAMPLES = _examples()


def test_the_eager_api_documents_examples():
    assert len(EXAMPLES) >= 8, [t.name for t in EXAMPLES]


@pytest.mark.parametrize("test", EXAMPLES, ids=lambda t: t.name.removeprefix("flowjob._src."))
def test_the_example_runs(test, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert flowjob.experimental is not None
    out: list[str] = []
    result = doctest.DocTestRunner(optionflags=FLAGS).run(test, out=out.append)
    assert result.failed == 0, "".join(out)
