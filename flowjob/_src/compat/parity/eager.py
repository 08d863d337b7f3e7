"""The eager signature table: OneFlow v0.4.0's experimental (eager) API against flowjob's objects.

The rows, read with ``ast`` from the clone's ``oneflow/python``:

* every module-level function and class decorated with ``@experimental_api`` under each of its
  ``@oneflow_export`` paths, and every exported definition of the eager folders (``nn/modules``,
  ``nn/optimizer``, ``autograd``) that lacks the decorator (``nn.Embedding``,
  ``autograd.grad``): a program reached them as ``oneflow.experimental.<path>``, so flowjob's
  object is the one at ``flowjob.experimental.<path>``; and the legacy exports whose path
  starts with ``experimental.`` (``experimental.unique_with_counts``, row ``unique_with_counts``),
  which the legacy table leaves out; and the names OneFlow gave objects of its C++ extension
  (``no_grad``, ``device``, ``Size``, ``placement``), compared by name only;
* ``<class path>.<name>``: the public methods of those classes, their bases' included
  (``nn.Linear.forward``, ``optim.SGD.zero_grad``; ``nn.Module``'s are rows of their own);
* ``Tensor.<name>``: each ``@register_tensor_op("name")`` function of ``nn/modules`` (its first
  parameter is the tensor) and each method or property of the ``Tensor`` class of
  ``framework/tensor.py`` (public names, and the operators a program reaches by syntax), looked
  up on ``flowjob.experimental.Tensor``;
* ``nn.Module.<name>``: the public methods and properties of ``nn/module.py``'s ``Module``,
  looked up on ``flowjob.nn.Module``.

The constructors of ``Tensor``, ``tensor``, ``nn.Module`` and ``nn.Parameter`` are rows of the
legacy table (``signatures``), which reads their files. A row passes by the legacy table's
rules (``signatures.compare``): a class's row is its ``__init__`` less ``self`` (the last
definition, after ``@overload`` ones), a method's its parameters less the tensor or module; an
operator's parameters are compared by position only, and a property needs an attribute that is
not a plain method. A failing row carries one line of reason from ``_eager_reasons`` or the
table fails.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import os
import typing
import warnings
from collections.abc import Iterator
from typing import Any

from ..api_coverage import DEFAULT_TAG
from . import _eager_reasons
from ._source import read_folder
from .signatures import (
    POSITIONAL,
    Param,
    _decorator_name,
    _params,
    compare,
    flowjob_object,
    flowjob_params,
)

_PACKAGE = "oneflow/python"
_EAGER_FOLDERS = ("nn/modules/", "nn/optimizer/", "autograd/")
_ROOT = "experimental."
_EXPORT_FILE, _INTERNAL_NAMES = "oneflow_export.py", "internal_names_2_api_names"
_TENSOR_FILE, _MODULE_FILE = "framework/tensor.py", "nn/module.py"
_OPERATORS = {
    "__getitem__", "__setitem__", "__gt__", "__lt__", "__mul__", "__rmul__", "__add__",
    "__radd__", "__sub__", "__rsub__", "__truediv__", "__rtruediv__", "__neg__", "__array__",
}  # fmt: skip
PROPERTY = "property"  # the parameters of a row whose OneFlow member is a property


@dataclasses.dataclass
class Row:
    path: str  # "nn.Linear" (reached as oneflow.experimental.nn.Linear), "Tensor.sum"...
    source: str  # OneFlow's file, relative to oneflow/python
    oneflow: list[Param] | str | None  # PROPERTY for a property; None: compared by name only
    flowjob: list[Param] | str | None  # None: no object or no signature
    problems: list[str]
    reason: str | None = None

    @property
    def status(self) -> str:
        """``"match"``, ``"fixed"`` (passes, listed in ``FIXED``), ``"reason"`` or ``"fail"``."""
        if not self.problems:
            return "fixed" if self.path in _eager_reasons.FIXED else "match"
        return "reason" if self.reason else "fail"


def _parse(text: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():  # OneFlow's docstrings hold "\_" escapes
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except SyntaxError:
        return None


def _string_args(node: ast.FunctionDef | ast.ClassDef, decorator: str) -> list[str]:
    return [
        arg.value
        for dec in node.decorator_list
        if isinstance(dec, ast.Call) and _decorator_name(dec) == decorator
        for arg in dec.args
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
    ]


def _methods(cls: ast.ClassDef, operators: bool) -> dict[str, list[Param] | str]:
    """``{name: parameters less self, or PROPERTY}`` of a class's own public members; a later
    definition replaces an earlier one, as at class creation (``ModuleDict`` redefines ``pop``)."""
    out: dict[str, list[Param] | str] = {}
    for node in cls.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        if node.name.startswith("_") and not (operators and node.name in _OPERATORS):
            continue
        decorators = set(map(_decorator_name, node.decorator_list))
        if "overload" in decorators:
            continue
        attribute = decorators & {"property", "setter", "deleter"}
        out[node.name] = PROPERTY if attribute else _params(node)[1:]
    return out


class _Classes:
    """The classes of OneFlow's eager folders, to follow a class's bases by name (the same
    file first): ``BatchNorm2d`` takes its constructor from ``_BatchNorm``, ``SGD`` its
    ``zero_grad`` from ``Optimizer``. ``Module`` is not followed: its members are rows."""

    def __init__(self) -> None:
        self._by_name: dict[str, list[tuple[str, ast.ClassDef]]] = {}

    def add(self, rel: str, node: ast.ClassDef) -> None:
        self._by_name.setdefault(node.name, []).append((rel, node))

    def chain(self, rel: str, node: ast.ClassDef) -> list[ast.ClassDef]:
        out, todo = [], [(rel, node)]
        while todo:
            rel, node = todo.pop(0)
            if node in out:
                continue
            out.append(node)
            for base in node.bases:
                found = self._by_name.get(base.id, []) if isinstance(base, ast.Name) else []
                found = sorted(found, key=lambda f: f[0] != rel)  # the same file first
                todo += found[:1]
        return out

    def init(self, rel: str, node: ast.ClassDef) -> list[Param] | None:
        for cls in self.chain(rel, node):
            inits = [
                n
                for n in cls.body
                if isinstance(n, ast.FunctionDef)
                and n.name == "__init__"
                and "overload" not in map(_decorator_name, n.decorator_list)
            ]
            if inits:
                return _params(inits[-1])[1:]
        return None

    def members(self, rel: str, node: ast.ClassDef, operators: bool) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for cls in self.chain(rel, node):
            for name, params in _methods(cls, operators).items():
                out.setdefault(name, params)  # the class's own definition wins
        return out


def _internal_exports(tree: ast.Module) -> list[str]:
    """The export names OneFlow gave objects of its C++ extension (``no_grad``, ``device``):
    the values of the ``internal_names_2_api_names`` dict of ``oneflow_export.py``."""
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and [getattr(t, "id", None) for t in node.targets] == [_INTERNAL_NAMES]
            and isinstance(node.value, ast.Dict)
        ):
            return [v.value for v in node.value.values if isinstance(v, ast.Constant)]
    return []


Entry = tuple[str, str, Any, str | None]  # (row path, file, parameters, owner's path or None)


def exported(clone: str | os.PathLike[str] | None = None, tag: str = DEFAULT_TAG) -> list[Entry]:
    """``(row path, file, parameters, owner)`` of every row, in file order (see the module
    docstring); parameters are ``None`` for a class without a constructor of its own or its
    bases', ``PROPERTY`` for a property; the owner is the path of the class a member row
    belongs to."""
    trees = []
    classes = _Classes()
    for path, text in sorted(read_folder(_PACKAGE, clone, tag).items()):
        rel = path[len(_PACKAGE) + 1 :]
        tree = _parse(text) if rel.endswith(".py") and not rel.startswith("test/") else None
        if tree is not None:
            trees.append((rel, tree))
            if rel.startswith(_EAGER_FOLDERS):
                for node in tree.body:
                    if isinstance(node, ast.ClassDef):
                        classes.add(rel, node)
    entries: list[Entry] = []
    tensor_ops: list[Entry] = []
    for rel, tree in trees:
        if rel == _EXPORT_FILE:
            entries += [(name, rel, None, None) for name in _internal_exports(tree)]
        eager_file = rel.startswith(_EAGER_FOLDERS)
        for node in tree.body:
            if not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                continue
            decorators = list(map(_decorator_name, node.decorator_list))
            exports = _string_args(node, "oneflow_export")
            if isinstance(node, ast.FunctionDef):
                params = _params(node)
                for name in _string_args(node, "register_tensor_op"):
                    tensor_ops.append((f"Tensor.{name}", rel, params[1:], "Tensor"))
            elif (rel, node.name) == (_TENSOR_FILE, "Tensor"):
                for name, p in _methods(node, True).items():
                    tensor_ops.append((f"Tensor.{name}", rel, p, "Tensor"))
                continue  # the constructor is a row of the legacy table
            elif (rel, node.name) == (_MODULE_FILE, "Module"):
                entries += [
                    (f"nn.Module.{n}", rel, p, "nn.Module")
                    for n, p in _methods(node, False).items()
                ]
                continue
            else:
                params = classes.init(rel, node)
            if not (eager_file or "experimental_api" in decorators):
                # a legacy export under experimental. itself (experimental.unique_with_counts)
                exports = [e[len(_ROOT) :] for e in exports if e.startswith(_ROOT)]
            for export in exports:
                entries.append((export, rel, params, None))
                if isinstance(node, ast.ClassDef):
                    for name, p in classes.members(rel, node, False).items():
                        entries.append((f"{export}.{name}", rel, p, export))
    return entries + tensor_ops


def _flowjob_member(path: str, owner_path: str | None) -> tuple[Any, list[str]]:
    """flowjob's parameters at a row's path (as the row compares them: a method's less its
    first, ``PROPERTY`` for any other attribute), and the problems that stop the comparison."""
    if owner_path is None:
        obj = flowjob_object(f"experimental.{path}")
        if obj is None:
            return None, ["flowjob has no object at this path"]
        return flowjob_params(obj), []
    owner = flowjob_object(f"experimental.{owner_path}")
    if inspect.isfunction(owner):  # a factory for OneFlow's class (custom_op_module)
        owner = typing.get_type_hints(owner).get("return", owner)
    name = path[len(owner_path) + 1 :]
    try:
        member = inspect.getattr_static(owner, name)
    except AttributeError:
        return None, [f"flowjob's {owner_path} has no {name!r}"]
    if isinstance(member, (staticmethod, classmethod)):
        member = member.__func__
    if inspect.isfunction(member):
        params = flowjob_params(member)
        return None if params is None else params[1:], []
    return PROPERTY, []


def _by_position(params: list[Param]) -> list[Param]:
    """Operators and ``forward`` (``Module.__call__`` passes only positional arguments) are
    called by position: only the number and kinds of parameters count."""
    return [dataclasses.replace(p, name=f"#{i}") for i, p in enumerate(params)]


def _compare(path: str, oneflow: Any, mine: Any, member: bool) -> list[str]:
    if oneflow is None:
        return []  # a class without a constructor in OneFlow's sources: only the name counts
    if oneflow == PROPERTY:
        return [] if mine == PROPERTY else ["a property in OneFlow, a method in flowjob"]
    if mine == PROPERTY:
        return ["a method in OneFlow, not a method in flowjob"]
    if mine is None:
        return ["flowjob's object has no signature"]
    if member and path.rpartition(".")[2] in _OPERATORS | {"forward"}:
        return compare(_by_position(oneflow), _by_position(mine))
    return compare(oneflow, mine)


def table(clone: str | os.PathLike[str] | None = None, tag: str = DEFAULT_TAG) -> list[Row]:
    """Every row, sorted by path; a path met twice keeps its first definition, except that a
    ``register_tensor_op`` replaces a ``Tensor`` method, as it did at import."""
    found: dict[str, Entry] = {}
    for entry in exported(clone, tag):
        if entry[0].startswith("Tensor.") or entry[0] not in found:
            found[entry[0]] = entry
    rows = []
    for path in sorted(found):
        _, source, params, owner = found[path]
        mine, problems = _flowjob_member(path, owner)
        problems = problems or _compare(path, params, mine, owner is not None)
        reason = _eager_reasons.reason(path) if problems else None
        rows.append(Row(path, source, params, mine, problems, reason))
    return rows


def counts(rows: list[Row]) -> dict[str, int]:
    """How many rows have each status."""
    out = {"match": 0, "fixed": 0, "reason": 0, "fail": 0}
    for row in rows:
        out[row.status] += 1
    return out


__all__ = ["POSITIONAL", "PROPERTY", "Param", "Row", "counts", "exported", "table"]
