"""Restoring the library names removed since 2021 (``_removed_names.REMOVED``) for a run.

``flowjob run`` sets each missing name, with its old meaning, for the program's run only, and
puts everything back afterwards; flowjob itself never uses them.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import sys
from collections.abc import Iterator
from typing import Any

from ._removed_names import REMOVED, Removed, is_module, namespace, owner_object

_MISSING = object()
_IMMUTABLE_TYPE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE: built-in types such as ndarray


def _set_type_attribute(cls: type, name: str, value: Any) -> None:
    """Sets (``value`` not _MISSING) or removes ``cls.name`` on a built-in type, whose
    attributes Python code cannot assign: through the type's own dict, then CPython's cache
    reset."""
    (table,) = gc.get_referents(cls.__dict__)  # the dict behind the read-only mapping proxy
    if value is _MISSING:
        del table[name]
    else:
        table[name] = value
    ctypes.pythonapi.PyType_Modified(ctypes.py_object(cls))


def _set(owner: Any, name: str, value: Any) -> None:
    if isinstance(owner, type) and owner.__flags__ & _IMMUTABLE_TYPE:
        _set_type_attribute(owner, name, value)
    elif value is _MISSING:
        delattr(owner, name)
    else:
        setattr(owner, name, value)


def missing(row: Removed, owner: Any) -> bool:
    """Whether ``owner`` lacks ``row.name`` (vars(), not getattr(): NumPy's module
    __getattr__ warns about, or even answers, removed names)."""
    return not any(row.name in vars(cls) for cls in getattr(owner, "__mro__", (owner,)))


@contextlib.contextmanager
def legacy_library_names() -> Iterator[None]:
    """Sets the removed names for the block, then puts everything back."""
    names = namespace()
    undo: list[tuple[Any, str, Any]] = []
    modules: list[str] = []
    try:
        for row in REMOVED:
            owner = owner_object(row.owner)
            if not (row.replaces or missing(row, owner)):
                continue
            value = eval(row.meaning, names)  # noqa: S307 - the table's own expressions
            undo.append((owner, row.name, vars(owner).get(row.name, _MISSING)))
            _set(owner, row.name, value)
            full_name = f"{row.owner}.{row.name}"
            if is_module(value) and full_name not in sys.modules:
                # `import numpy.compat` / `from xml.etree import cElementTree` find it too.
                sys.modules[full_name] = value
                modules.append(full_name)
        yield
    finally:
        for name in modules:
            sys.modules.pop(name, None)
        for owner, name, original in reversed(undo):
            _set(owner, name, original)
