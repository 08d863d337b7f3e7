"""How much of OneFlow v0.4.0's legacy API resolves under flowjob's ``oneflow`` alias.

``python -m flowjob._src.compat.api_coverage [--oneflow PATH] [--tag v0.4.0]`` reads the export list
from a OneFlow git clone (``PATH`` or ``$FLOWJOB_ONEFLOW_SRC``; a bare clone is fine: files are
read with ``git archive`` of the tag, the work tree is never used) and prints
``N of M names resolve`` followed by the missing names, one a line.

The list: every string argument of an ``oneflow_export(...)`` call in ``oneflow/python``,
parsed with ``ast``, leaving out the new eager API (files under ``nn/modules/``, names
``experimental.*`` and ``autograd.*``, and names whose definition is also decorated with
``@experimental_api``) and the test folder. A name resolves when walking its dotted path from
``import oneflow`` (the alias) finds an object.

``--python-modules`` prints instead the table behind ``oneflow.python.*`` imports
(``flowjob/_src/compat/legacy/python_modules.txt``): for each module of ``oneflow/python``
(the test folder left out), the module-level names it exported and their export paths.
"""

from __future__ import annotations

import argparse
import ast
import io
import os
import subprocess
import sys
import tarfile
import warnings
from collections.abc import Iterator
from pathlib import Path

from ..errors import FlowJobError

ENV_VAR = "FLOWJOB_ONEFLOW_SRC"
DEFAULT_TAG = "v0.4.0"
_PACKAGE = "oneflow/python"
_SKIPPED_FOLDERS = (f"{_PACKAGE}/nn/modules/", f"{_PACKAGE}/test/")
_SKIPPED_ROOTS = ("experimental", "autograd")


class OneFlowSourceError(FlowJobError):
    """The OneFlow clone cannot be read (no path given, not a git repository, no such tag)."""


def _decorator_name(node: ast.expr) -> str | None:
    func = node.func if isinstance(node, ast.Call) else node
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _exports_of(tree: ast.AST) -> Iterator[str]:
    """The exported names of one module, except those of ``@experimental_api`` definitions."""
    experimental_calls: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if "experimental_api" in map(_decorator_name, node.decorator_list):
                experimental_calls.update(id(d) for d in node.decorator_list)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and _decorator_name(node) == "oneflow_export"
            and id(node) not in experimental_calls
        ):
            for arg in node.args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    yield arg.value


def _exported_definitions(tree: ast.Module) -> Iterator[tuple[str, list[str]]]:
    """``(name, export paths)`` of each module-level definition decorated with
    ``oneflow_export``, in source order."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            paths = [
                arg.value
                for dec in node.decorator_list
                if isinstance(dec, ast.Call) and _decorator_name(dec) == "oneflow_export"
                for arg in dec.args
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
            ]
            if paths:
                yield node.name, paths


def _archive(clone: Path, tag: str) -> tarfile.TarFile:
    try:
        done = subprocess.run(
            ["git", "-C", str(clone), "archive", tag, _PACKAGE], capture_output=True, check=True
        )
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", b"") or str(exc).encode()
        raise OneFlowSourceError(
            f"cannot read {_PACKAGE} at tag {tag} from the OneFlow clone {clone}: "
            f"{detail.decode(errors='replace').strip()}"
        ) from exc
    return tarfile.open(fileobj=io.BytesIO(done.stdout))


def _parsed_modules(clone: Path, tag: str) -> Iterator[tuple[str, ast.Module]]:
    """``(member path, syntax tree)`` of every Python file under ``oneflow/python`` at ``tag``."""
    with _archive(clone, tag) as archive:
        for member in archive.getmembers():
            if not member.name.endswith(".py"):
                continue
            source = archive.extractfile(member).read()
            try:
                with warnings.catch_warnings():  # OneFlow's docstrings hold "\_" escapes
                    warnings.simplefilter("ignore")
                    tree = ast.parse(source)
            except SyntaxError:
                continue  # v0.4.0 ships one Python 2 file under test/deprecated; never exported
            yield member.name, tree


def legacy_export_names(clone: str | os.PathLike[str], tag: str = DEFAULT_TAG) -> list[str]:
    """OneFlow's legacy export list at ``tag``, sorted (see the module docstring)."""
    names: set[str] = set()
    for path, tree in _parsed_modules(Path(clone), tag):
        if not path.startswith(_SKIPPED_FOLDERS):
            names.update(n for n in _exports_of(tree) if n.split(".")[0] not in _SKIPPED_ROOTS)
    return sorted(names)


def python_module_lines(clone: str | os.PathLike[str], tag: str = DEFAULT_TAG) -> list[str]:
    """The lines of ``legacy/python_modules.txt``: ``module name path...``, the module relative
    to ``oneflow.python``, sorted by module then in source order."""
    lines = []
    for path, tree in sorted(_parsed_modules(Path(clone), tag)):
        if path.startswith(f"{_PACKAGE}/test/"):
            continue
        module = path[len(_PACKAGE) + 1 : -len(".py")].replace("/", ".")
        module = module.removesuffix(".__init__").removesuffix("__init__")
        lines += [" ".join([module, name, *paths]) for name, paths in _exported_definitions(tree)]
    return lines


def resolves(name: str) -> bool:
    """True when ``oneflow.<name>`` is an object under flowjob's alias."""
    from . import aliased

    with aliased():
        import oneflow

        obj = oneflow
        for part in name.split("."):
            try:
                obj = getattr(obj, part)
            except AttributeError:
                return False
    return True


def coverage(clone: str | os.PathLike[str], tag: str = DEFAULT_TAG) -> tuple[list[str], list[str]]:
    """``(names, missing)``: the export list and the names of it that do not resolve."""
    names = legacy_export_names(clone, tag)
    return names, [n for n in names if not resolves(n)]


def clone_path(given: str | None) -> Path:
    """The clone from ``--oneflow`` or ``$FLOWJOB_ONEFLOW_SRC``."""
    path = given or os.environ.get(ENV_VAR)
    if not path:
        raise OneFlowSourceError(f"no OneFlow clone: pass --oneflow PATH or set {ENV_VAR}")
    return Path(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m flowjob._src.compat.api_coverage", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--oneflow", help=f"OneFlow git clone (default: ${ENV_VAR})")
    parser.add_argument("--tag", default=DEFAULT_TAG, help="tag or commit to read")
    parser.add_argument(
        "--python-modules",
        action="store_true",
        help="print the oneflow.python module table (legacy/python_modules.txt) instead",
    )
    args = parser.parse_args(argv)
    try:
        if args.python_modules:
            print("\n".join(python_module_lines(clone_path(args.oneflow), args.tag)))
            return 0
        names, missing = coverage(clone_path(args.oneflow), args.tag)
    except OneFlowSourceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{len(names) - len(missing)} of {len(names)} names resolve")
    for name in missing:
        print(f"missing: {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
