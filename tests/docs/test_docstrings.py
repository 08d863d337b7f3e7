"""The API reference's executed examples: one public op of each family documents its
arguments (``Args:``/``Returns:``/``Raises:``) and carries a doctest, run here as pytest's
doctests would, each in a fresh default session and an empty working directory."""

from __future__ import annotations

import doctest
import inspect

import pytest

import flowjob as flow
import flowjob.typing as tp

# One documented entry point per public op family (namespace), by its public name.
DOCUMENTED = {
    "flow.nn.relu": flow.nn.relu,
    "flow.math.reduce_mean": flow.math.reduce_mean,
    "flow.layers.dense": flow.layers.dense,
    "flow.optimizer.SGD": flow.optimizer.SGD,
    "flow.summary.SummaryWriter": flow.summary.SummaryWriter,
    "flow.checkpoint.save": flow.checkpoint.save,
    "tp.Numpy": tp.Numpy,
    "flow.data.write_ofrecord": flow.data.write_ofrecord,
    "flow.watch": flow.watch,
    "flow.watch_diff": flow.watch_diff,
}
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _examples(name: str, obj: object) -> list[doctest.DocTest]:
    tests = doctest.DocTestFinder(recurse=False).find(obj, name, globs={})
    return [t for t in tests if t.examples]


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_the_docstring_documents_its_arguments(name):
    doc = inspect.getdoc(DOCUMENTED[name]) or ""
    if inspect.isclass(DOCUMENTED[name]) and name != "tp.Numpy":
        doc += inspect.getdoc(DOCUMENTED[name].__init__) or ""
    needed = ("Examples:",) if name == "tp.Numpy" else ("Args:", "Raises:", "Examples:")
    assert all(section in doc for section in needed), f"{name}: {needed}"


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_the_example_runs(name, fresh_session, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (test,) = _examples(name, DOCUMENTED[name])
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    out: list[str] = []
    result = runner.run(test, out=out.append)
    assert result.failed == 0, "".join(out)
    assert result.attempted >= 2
