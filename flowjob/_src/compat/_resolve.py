"""Which flowjob object a OneFlow module name stands for."""

from __future__ import annotations

import difflib
import importlib
import types
from typing import Any

from . import _python_modules
from ._errors import MissingOneFlowModule

# Longest first: "oneflow.compatible.single_client.typing" must not match as "oneflow" + path.
ROOTS = ("oneflow.compatible.single_client", "oneflow")
COMPATIBLE = "oneflow.compatible"
EXPERIMENTAL = "flowjob.experimental"  # v0.4 published every API name here too

# The target of the bare ``oneflow.compatible`` package: it only holds ``single_client``.
COMPATIBLE_TARGET = types.ModuleType(COMPATIBLE, "OneFlow's v0.5+ home of the legacy API.")


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()  # what child_of returns when flowjob has no such name

# OneFlow's internal packages under the root, served by flowjob._src.compat.legacy (not part of
# flowjob's own namespace): root attribute -> flowjob module.
LEGACY_MODULES = {
    "_oneflow_internal": "flowjob._src.compat.legacy._oneflow_internal",
    "core": "flowjob._src.compat.legacy.core",
    "python": "flowjob._src.compat.legacy.python",
}


def is_alias_name(name: str) -> bool:
    """True for ``oneflow`` and every ``oneflow.*`` name."""
    return name == "oneflow" or name.startswith("oneflow.")


def _flowjob_path(name: str) -> tuple[str, ...]:
    for root in ROOTS:
        if name == root:
            return ()
        if name.startswith(root + "."):
            return tuple(name[len(root) + 1 :].split("."))
    raise ValueError(f"{name!r} is not a oneflow module name")


def resolve(name: str) -> Any:
    """The flowjob object behind the alias module ``name``.

    ``oneflow`` and ``oneflow.compatible.single_client`` are ``flowjob``; ``oneflow.a.b`` is
    ``flowjob.a.b`` (an attribute, or a flowjob submodule not imported yet). Raises
    ``MissingOneFlowModule`` naming ``name`` when flowjob has no such thing.
    """
    if name == COMPATIBLE:
        return COMPATIBLE_TARGET
    path = _flowjob_path(name)
    if name.startswith(COMPATIBLE + ".") and not name.startswith(ROOTS[0]):
        raise MissingOneFlowModule(name, suggestion=ROOTS[0] if path else None)
    import flowjob

    obj: Any = flowjob
    alias = name.rsplit(".", len(path))[0] if path else name
    for part in path:
        child = child_of(obj, part)
        if child is MISSING:
            raise MissingOneFlowModule(f"{alias}.{part}", suggestion=suggest(alias, obj, part))
        obj, alias = child, f"{alias}.{part}"
    return obj


def child_of(obj: Any, part: str) -> Any:
    """``obj.part``, importing a flowjob submodule of that name if needed; ``MISSING`` if none.

    Two OneFlow v0.4 publication rules apply where flowjob has no such name: every name of
    the API also lived under ``oneflow.experimental`` (so ``experimental.X`` is ``X``), and a
    module of ``oneflow.python`` gives the names it exported (``_python_modules``).
    """
    if part in LEGACY_MODULES and getattr(obj, "__name__", None) == "flowjob":
        return importlib.import_module(LEGACY_MODULES[part])
    try:
        return getattr(obj, part)
    except AttributeError:
        pass
    if not is_flowjob_module(obj):
        return MISSING
    if hasattr(obj, "__path__") and not part.startswith("_"):
        full = f"{obj.__name__}.{part}"
        try:
            return importlib.import_module(full)
        except ModuleNotFoundError as exc:
            if exc.name != full:
                raise
    if obj.__name__ == EXPERIMENTAL:
        return child_of(importlib.import_module("flowjob"), part)
    return _python_modules.child(obj.__name__, part, _at_export_path, MISSING)


def _at_export_path(path: str) -> Any:
    """flowjob's object at the OneFlow export ``path`` (``nn.Parameter``), or ``MISSING``."""
    obj: Any = importlib.import_module("flowjob")
    for part in path.split("."):
        obj = child_of(obj, part)
        if obj is MISSING:
            break
    return obj


def is_flowjob_module(obj: Any) -> bool:
    return isinstance(obj, types.ModuleType) and (
        obj.__name__ == "flowjob" or obj.__name__.startswith("flowjob.")
    )


def suggest(alias_parent: str, target: Any, attr: str) -> str | None:
    """``alias_parent.<closest public name of target>``, if one is close to ``attr``."""
    names = [n for n in dir(target) if not n.startswith("_")]
    close = difflib.get_close_matches(attr, names, n=1, cutoff=0.75)
    return f"{alias_parent}.{close[0]}" if close else None
