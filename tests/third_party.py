"""Other projects' programs that stop on a third-party module this environment lacks.

A OneFlow program that imports, say, ``cv2`` tells nothing about flowjob where OpenCV is not
installed: its test skips with one line naming the module and how to install it, instead of
failing. Only a program that *died* of the ``ModuleNotFoundError`` counts, and only for a
module that is neither OneFlow's nor flowjob's, is not installed here and is not a file beside
the program (a missing module of the program's own folder is a real failure).
"""

from __future__ import annotations

import ast
import importlib.util
import re
from collections.abc import Iterable
from pathlib import Path

import pytest

# The last exception line of a traceback: "ModuleNotFoundError: No module named 'cv2'".
_EXCEPTION_LINE = re.compile(r"^(?:[\w.]+\.)?(\w+(?:Error|Exception|Exit)): ?(.*)$", re.M)
_NO_MODULE = re.compile(r"No module named '([\w.]+)'")
_OURS = frozenset({"oneflow", "flowjob", "tests"})
# Modules whose distribution is in one of flowjob's extras: module -> pip install argument.
_INSTALL = {
    "cv2": "-e '.[oneflow-tests]'",
    "tensorflow": "-e '.[oneflow-tests]'",
    "tf_keras": "-e '.[oneflow-tests]'",
    "sklearn": "scikit-learn",
    "PIL": "Pillow",
}


def _absent(name: str, beside: Iterable[Path]) -> bool:
    """Whether ``name`` is a third-party module this environment lacks."""
    top = name.split(".")[0]
    if top in _OURS or importlib.util.find_spec(top) is not None:
        return False
    return not any((f / top).is_dir() or (f / f"{top}.py").is_file() for f in beside)


def missing_module(output: str, beside: Iterable[Path] = ()) -> str | None:
    """The third-party module the program whose ``output`` this is stopped on, or None."""
    raised = _EXCEPTION_LINE.findall(output)
    if not raised or raised[-1][0] != "ModuleNotFoundError":
        return None
    found = _NO_MODULE.search(raised[-1][1])
    if found is None or not _absent(found.group(1), beside):
        return None
    return found.group(1)


def missing_import(source: str, beside: Iterable[Path] = ()) -> str | None:
    """The first third-party module a program imports at its top level (where it cannot run
    without it) that this environment lacks, or None; read without running it."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            if _absent(name, beside):
                return name
    return None


def install_hint(module: str) -> str:
    top = module.split(".")[0]
    return f"pip install {_INSTALL.get(top, top)}"


def skip_if_missing_module(output: str, what: str, beside: Iterable[Path] = ()) -> None:
    """Skips the running test when ``what`` (a program) stopped on a missing third-party module."""
    name = missing_module(output, beside)
    if name is not None:
        pytest.skip(f"{what} imports {name}, which is not installed: {install_hint(name)}")
