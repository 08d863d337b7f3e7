"""Alias modules: ``oneflow.*`` module objects that forward every attribute to flowjob."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import threading
import types
from typing import Any

from ._errors import MissingOneFlowAPI
from ._resolve import COMPATIBLE, MISSING, ROOTS, child_of, is_flowjob_module, resolve, suggest

_TARGET = "__flowjob_target__"
# Names the import system and inspect look up on modules; never forwarded to the target.
_MODULE_DUNDERS = frozenset(
    {
        "__path__",
        "__file__",
        "__cached__",
        "__spec__",
        "__loader__",
        "__package__",
        "__builtins__",
        "__getattr__",
        "__dir__",
        "__wrapped__",
    }
)
_lock = threading.RLock()


class AliasModule(types.ModuleType):
    """The module a OneFlow program gets for ``import oneflow...``.

    Attributes are looked up on the flowjob object live (nothing is copied), so
    ``flow.typing.Numpy is flowjob.typing.Numpy``. A flowjob submodule comes back as the alias
    module of the matching OneFlow name (``flow.summary`` is ``sys.modules["oneflow.summary"]``),
    and a name flowjob lacks raises ``MissingOneFlowAPI`` naming the OneFlow API.
    """

    def __init__(self, name: str, target: Any):
        super().__init__(name, getattr(target, "__doc__", None))
        self.__dict__[_TARGET] = target

    def __getattr__(self, attr: str) -> Any:
        target = self.__dict__[_TARGET]
        name = self.__dict__["__name__"]
        if attr == "__all__":
            return list(
                getattr(target, "__all__", None)
                or [n for n in dir(target) if not n.startswith("_")]
            )
        if attr.startswith("__") and attr.endswith("__"):
            if attr not in _MODULE_DUNDERS and hasattr(target, attr):
                return getattr(target, attr)  # e.g. __version__
            raise AttributeError(f"module {name!r} has no attribute {attr!r}")
        if name == COMPATIBLE and attr == "single_client":
            return alias_module(ROOTS[0])
        value = child_of(target, attr)
        if value is MISSING:
            raise MissingOneFlowAPI(f"{name}.{attr}", suggest(name, target, attr))
        if id(value) in _overrides:
            return _overrides[id(value)][1]
        if is_flowjob_module(value):
            child = alias_module(f"{name}.{attr}")
            self.__dict__[attr] = child  # later lookups skip __getattr__
            return child
        return value

    def __dir__(self) -> list[str]:
        target = self.__dict__[_TARGET]
        return sorted(set(dir(target)) | set(self.__dict__) - {_TARGET})

    def __repr__(self) -> str:
        target = self.__dict__[_TARGET]
        shown = getattr(target, "__name__", type(target).__name__)
        return f"<module {self.__name__!r} (flowjob alias of {shown!r})>"


class AliasLoader(importlib.abc.Loader):
    """Creates an ``AliasModule`` for a resolved OneFlow name; there is no code to execute."""

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> AliasModule:
        return AliasModule(spec.name, resolve(spec.name))

    def exec_module(self, module: types.ModuleType) -> None:
        return None


LOADER = AliasLoader()


def spec_for(name: str) -> importlib.machinery.ModuleSpec:
    """A package spec (so ``oneflow.x.y`` submodule imports go through the finder)."""
    return importlib.machinery.ModuleSpec(name, LOADER, is_package=True)


def alias_module(name: str) -> AliasModule:
    """The alias module for ``name`` from ``sys.modules``, creating and binding it if needed.

    Once the alias is uninstalled, alias modules a program still holds keep working: new ones
    are then cached on their parent only, and ``sys.modules`` stays clean.
    """
    with _lock:
        existing = sys.modules.get(name)
        if isinstance(existing, AliasModule):
            return existing
        module = importlib.util.module_from_spec(spec_for(name))
        if _active:
            sys.modules[name] = module
        parent, _, child = name.rpartition(".")
        if parent and isinstance(sys.modules.get(parent), AliasModule):
            setattr(sys.modules[parent], child, module)
        return module  # type: ignore[return-value]


_active = False
# id(flowjob object) -> (that object, what alias modules give instead); see set_overrides.
_overrides: dict[int, tuple[Any, Any]] = {}


def set_overrides(pairs: list[tuple[Any, Any]]) -> None:
    """Alias modules give ``replacement`` wherever flowjob has ``original`` (e.g. a
    synchronous ``global_function`` under ``flowjob run --sync``); ``[]`` clears."""
    _overrides.clear()
    _overrides.update({id(original): (original, new) for original, new in pairs})


def set_active(active: bool) -> None:
    """Called by the finder: whether new alias modules go into ``sys.modules``."""
    global _active
    _active = active
