"""The ``sys.meta_path`` finder that makes ``import oneflow...`` give flowjob's alias modules."""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import sys
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from ._alias import AliasModule, set_active, spec_for
from ._resolve import is_alias_name, resolve


class OneFlowAliasFinder(importlib.abc.MetaPathFinder):
    """Finds every ``oneflow`` / ``oneflow.*`` module name, ahead of any installed package."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not is_alias_name(fullname):
            return None
        resolve(fullname)  # raises MissingOneFlowModule naming what flowjob lacks
        return spec_for(fullname)


_finder = OneFlowAliasFinder()
_state_lock = threading.Lock()
_installs = 0
_shadowed: dict[str, Any] = {}


def is_installed() -> bool:
    """Whether ``import oneflow`` currently resolves to flowjob."""
    return _finder in sys.meta_path


def install() -> None:
    """Makes ``oneflow``, ``oneflow.compatible.single_client`` and their submodules import as
    flowjob. Nested calls are counted; each needs one ``uninstall()``."""
    global _installs
    with _state_lock:
        _installs += 1
        if _installs > 1:
            return
        # A real oneflow imported earlier in this process is set aside, then put back.
        for name in [n for n in sys.modules if is_alias_name(n)]:
            if not isinstance(sys.modules[name], AliasModule):
                _shadowed[name] = sys.modules.pop(name)
        sys.meta_path.insert(0, _finder)
        set_active(True)


def uninstall() -> None:
    """Undoes ``install()``: removes the finder and the alias modules from ``sys.modules``."""
    global _installs
    with _state_lock:
        if _installs == 0:
            return
        _installs -= 1
        if _installs:
            return
        set_active(False)
        while _finder in sys.meta_path:
            sys.meta_path.remove(_finder)
        for name in [n for n in sys.modules if is_alias_name(n)]:
            if isinstance(sys.modules[name], AliasModule):
                del sys.modules[name]
        sys.modules.update(_shadowed)
        _shadowed.clear()


@contextlib.contextmanager
def aliased() -> Iterator[None]:
    """``with aliased(): import oneflow as flow`` -- the alias is active inside the block only."""
    install()
    try:
        yield
    finally:
        uninstall()
