"""``oneflow.python.<module>`` by the names OneFlow exported from it.

OneFlow v0.4 defined its public API in modules under ``oneflow.python`` and published each
definition under an export path (``oneflow.python.nn.parameter.Parameter`` is
``oneflow.nn.Parameter``). Programs and tests import some of them by the module path. The
table ``legacy/python_modules.txt`` lists, for each such module, its exported names and their
export paths; here a module of the table is a stand-in module, and a name of it is flowjob's
object at the export path (or at ``experimental.<path>``, where v0.4 also published it).
Modules written by hand under ``legacy/python`` (helpers OneFlow did not export) come first;
a name they lack falls back to the table too.
"""

from __future__ import annotations

import functools
import threading
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

PACKAGE = "flowjob._src.compat.legacy.python"  # what ``oneflow.python`` resolves to
_TABLE = Path(__file__).with_name("legacy") / "python_modules.txt"
_lock = threading.Lock()
_stand_ins: dict[str, types.ModuleType] = {}


@functools.cache
def _table() -> dict[str, dict[str, tuple[str, ...]]]:
    """module (relative to ``oneflow.python``) -> {name: export paths}."""
    table: dict[str, dict[str, tuple[str, ...]]] = {}
    for line in _TABLE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            module, name, *paths = line.split()
            table.setdefault(module, {})[name] = tuple(paths)
    return table


@functools.cache
def _packages() -> frozenset[str]:
    """Every module of the table and every package above one."""
    found = set()
    for module in _table():
        parts = module.split(".")
        found.update(".".join(parts[: i + 1]) for i in range(len(parts)))
    return frozenset(found)


def _relative(module_name: str) -> str | None:
    """``nn.parameter`` for ``flowjob._src.compat.legacy.python.nn.parameter``, ``""`` for the
    package itself, None for a module outside it."""
    if module_name == PACKAGE:
        return ""
    if module_name.startswith(PACKAGE + "."):
        return module_name[len(PACKAGE) + 1 :]
    return None


def _stand_in(relative: str) -> types.ModuleType:
    name = f"{PACKAGE}.{relative}"
    with _lock:
        module = _stand_ins.get(name)
        if module is None:
            module = types.ModuleType(
                name, f"``oneflow.python.{relative}``: the names OneFlow exported from it."
            )
            _stand_ins[name] = module
        return module


def child(module_name: str, part: str, walk: Callable[[str], Any], missing: Any) -> Any:
    """The submodule or exported name ``part`` of the ``oneflow.python`` module behind
    ``module_name``; ``missing`` if OneFlow had none or flowjob lacks the object.

    ``walk(path)`` is flowjob's object at the dotted export ``path`` (``missing`` if none).
    """
    relative = _relative(module_name)
    if relative is None:
        return missing
    inner = f"{relative}.{part}" if relative else part
    if inner in _packages():
        return _stand_in(inner)
    for path in _table().get(relative, {}).get(part, ()):
        for candidate in (path, f"experimental.{path}"):
            found = walk(candidate)
            if found is not missing:
                return found
    return missing
