"""The signature table: OneFlow v0.4.0's exported legacy functions against flowjob's objects.

One row per export path of every module-level function and class of ``oneflow/python``
decorated with ``@oneflow_export`` (the legacy API: not ``@experimental_api``, not under
``nn/modules/`` or ``test/``, no ``experimental.*``/``autograd.*`` path). A class's row is its
``__init__`` less ``self`` (a class that inherits its constructor is only looked up).
flowjob's object is the one the ``oneflow`` alias gives at the same path
(``_resolve.child_of``), its parameters read by ``inspect.signature``.

A row passes when a program written for OneFlow calls flowjob's object the same ways:

* the i-th positional parameter of OneFlow has flowjob's i-th positional parameter of the same
  name (positional and keyword calls both land);
* a OneFlow parameter with a default has one in flowjob, equal where OneFlow's default
  evaluates with ``oneflow`` bound to flowjob (numbers by value, lists and tuples by items);
* OneFlow's keyword-only parameters exist in flowjob by name (or flowjob takes ``**kwargs``);
  OneFlow's ``*args``/``**kwargs`` exist in flowjob;
* flowjob's parameters that OneFlow lacks have defaults.

A failing row carries one line of reason from ``_signature_reasons`` or the table fails.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import os
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..api_coverage import DEFAULT_TAG
from . import _signature_reasons
from ._source import read_folder

_PACKAGE = "oneflow/python"
_SKIPPED_FOLDERS = (f"{_PACKAGE}/nn/modules/", f"{_PACKAGE}/test/")
_SKIPPED_ROOTS = ("experimental", "autograd")

POSITIONAL, VAR_POSITIONAL, KEYWORD_ONLY, VAR_KEYWORD = "p", "*", "k", "**"
_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: POSITIONAL,
    inspect.Parameter.POSITIONAL_OR_KEYWORD: POSITIONAL,
    inspect.Parameter.VAR_POSITIONAL: VAR_POSITIONAL,
    inspect.Parameter.KEYWORD_ONLY: KEYWORD_ONLY,
    inspect.Parameter.VAR_KEYWORD: VAR_KEYWORD,
}


@dataclasses.dataclass(frozen=True)
class Param:
    name: str
    kind: str  # POSITIONAL, VAR_POSITIONAL, KEYWORD_ONLY or VAR_KEYWORD
    default: Any = inspect.Parameter.empty  # OneFlow: the source text; flowjob: the value

    def __str__(self) -> str:
        prefix = {VAR_POSITIONAL: "*", VAR_KEYWORD: "**"}.get(self.kind, "")
        if self.default is inspect.Parameter.empty:
            return prefix + self.name
        shown = self.default if isinstance(self.default, str) else repr(self.default)
        return f"{self.name}={shown}"


@dataclasses.dataclass
class Row:
    path: str  # the export path, e.g. "nn.conv2d"
    source: str  # OneFlow's file, relative to oneflow/python
    oneflow: list[Param] | None  # None: a class that inherits its constructor
    flowjob: list[Param] | None  # None: no object or no signature at that path
    problems: list[str]
    reason: str | None = None  # the known difference's one line, for a failing row

    @property
    def status(self) -> str:
        """``"match"``, ``"fixed"`` (passes, listed in ``FIXED``), ``"reason"`` or ``"fail"``."""
        if not self.problems:
            return "fixed" if self.path in _signature_reasons.FIXED else "match"
        return "reason" if self.reason else "fail"


def _decorator_name(node: ast.expr) -> str | None:
    func = node.func if isinstance(node, ast.Call) else node
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def _params(fn: ast.FunctionDef) -> list[Param]:
    a = fn.args
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    out = [
        Param(p.arg, POSITIONAL, inspect.Parameter.empty if d is None else ast.unparse(d))
        for p, d in zip(positional, defaults)
    ]
    if a.vararg:
        out.append(Param(a.vararg.arg, VAR_POSITIONAL))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append(
            Param(p.arg, KEYWORD_ONLY, inspect.Parameter.empty if d is None else ast.unparse(d))
        )
    if a.kwarg:
        out.append(Param(a.kwarg.arg, VAR_KEYWORD))
    return out


def exported(
    clone: str | os.PathLike[str] | None = None, tag: str = DEFAULT_TAG
) -> Iterator[tuple[str, str, list[Param] | None]]:
    """``(export path, file, parameters)`` of OneFlow's legacy exports, in file order."""
    for path, text in sorted(read_folder(_PACKAGE, clone, tag).items()):
        if not path.endswith(".py") or path.startswith(_SKIPPED_FOLDERS):
            continue
        try:
            with warnings.catch_warnings():  # OneFlow's docstrings hold "\_" escapes
                warnings.simplefilter("ignore")
                tree = ast.parse(text)
        except SyntaxError:
            continue  # one Python 2 file under test/deprecated; never exported
        for node in tree.body:
            if not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                continue
            decorators = [_decorator_name(d) for d in node.decorator_list]
            if "oneflow_export" not in decorators or "experimental_api" in decorators:
                continue
            if isinstance(node, ast.ClassDef):
                inits = [
                    n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"
                ]
                params = _params(inits[0])[1:] if inits else None
            else:
                params = _params(node)
            for dec in node.decorator_list:
                if not (isinstance(dec, ast.Call) and _decorator_name(dec) == "oneflow_export"):
                    continue
                for arg in dec.args:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        if arg.value.split(".")[0] not in _SKIPPED_ROOTS:
                            yield arg.value, path[len(_PACKAGE) + 1 :], params


def flowjob_object(path: str) -> Any:
    """flowjob's object at the OneFlow export ``path``, or ``None``."""
    import flowjob

    from .. import _resolve

    obj: Any = flowjob
    for part in path.split("."):
        obj = _resolve.child_of(obj, part)
        if obj is _resolve.MISSING:
            return None
    return obj


def flowjob_params(obj: Any) -> list[Param] | None:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    return [Param(p.name, _KINDS[p.kind], p.default) for p in sig.parameters.values()]


_UNEVALUATED = object()


def _evaluate(source: str) -> Any:
    import flowjob

    try:
        return eval(source, {"oneflow": flowjob, "flow": flowjob, "np": np})  # noqa: S307
    except Exception:  # OneFlow internals (GetVariablesForCurrentJob, _oneflow_internal...)
        return _UNEVALUATED


def same_default(oneflow_source: str, value: Any) -> bool:
    """Whether flowjob's default ``value`` equals OneFlow's (``oneflow_source``), or OneFlow's
    cannot be evaluated outside OneFlow."""
    expected = _evaluate(oneflow_source)
    if expected is _UNEVALUATED:
        return True
    if isinstance(expected, (list, tuple)) and isinstance(value, (list, tuple)):
        return len(expected) == len(value) and all(
            same_default(repr(e), v) for e, v in zip(expected, value)
        )
    if isinstance(expected, bool) or isinstance(value, bool):
        return expected is value
    if isinstance(expected, (int, float)) and isinstance(value, (int, float)):
        return expected == value
    if expected is None or value is None:
        return expected is value
    return type(expected) is type(value) and bool(expected == value)


def compare(oneflow: list[Param], flowjob: list[Param]) -> list[str]:
    """The problems of one row (empty: it passes); see the module docstring."""
    problems = []
    by_name = {p.name: p for p in flowjob}
    kinds = {p.kind for p in flowjob}
    flow_positional = [p for p in flowjob if p.kind == POSITIONAL]
    for i, p in enumerate(q for q in oneflow if q.kind == POSITIONAL):
        if i >= len(flow_positional) or flow_positional[i].name != p.name:
            got = flow_positional[i].name if i < len(flow_positional) else "nothing"
            problems.append(f"positional {i} is {p.name!r} in OneFlow, {got!r} in flowjob")
            continue
    for p in oneflow:
        mine = by_name.get(p.name)
        if p.kind in (VAR_POSITIONAL, VAR_KEYWORD):
            if p.kind not in kinds:
                problems.append(f"OneFlow takes {p}, flowjob does not")
            continue
        if mine is None:
            if p.kind == KEYWORD_ONLY and VAR_KEYWORD not in kinds:
                problems.append(f"keyword {p.name!r} of OneFlow is missing")
            continue
        if p.default is inspect.Parameter.empty:
            continue
        if mine.default is inspect.Parameter.empty:
            problems.append(f"{p.name!r} has the default {p.default} in OneFlow, none in flowjob")
        elif not same_default(p.default, mine.default):
            problems.append(
                f"{p.name!r} defaults to {p.default} in OneFlow, {mine.default!r} in flowjob"
            )
    names = {p.name for p in oneflow}
    for p in flowjob:
        if p.name not in names and p.kind in (POSITIONAL, KEYWORD_ONLY):
            if p.default is inspect.Parameter.empty:
                problems.append(f"flowjob's {p.name!r} is required and OneFlow has no such one")
    return problems


def table(clone: str | os.PathLike[str] | None = None, tag: str = DEFAULT_TAG) -> list[Row]:
    """Every row, sorted by export path (a path exported twice keeps its first definition)."""
    rows: dict[str, Row] = {}
    for path, source, params in exported(clone, tag):
        if path in rows:
            continue
        obj = flowjob_object(path)
        mine = None if obj is None else flowjob_params(obj)
        if obj is None:
            problems = ["flowjob has no object at this path"]
        elif params is None:
            problems = []  # OneFlow's class inherits its constructor: only the name is compared
        elif mine is None:
            problems = ["flowjob's object has no signature"]
        else:
            problems = compare(params, mine)
        reason = _signature_reasons.reason(path) if problems else None
        rows[path] = Row(path, source, params, mine, problems, reason)
    return [rows[p] for p in sorted(rows)]


def counts(rows: list[Row]) -> dict[str, int]:
    """How many rows have each status."""
    out = {"match": 0, "fixed": 0, "reason": 0, "fail": 0}
    for row in rows:
        out[row.status] += 1
    return out
