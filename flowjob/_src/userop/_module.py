"""OneFlow v0.4's op modules: ``flow.deprecated.nn.Module`` (a callable that builds ops, e.g.
around a ``user_op_module_builder``, numbering its calls) and ``flow.find_or_create_module``
(one module object per name within a job body)."""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Callable
from typing import Any

from .._deprecation import warn_once
from ..errors import OpError
from ..graph import current_graph

_unnamed = itertools.count()
_lock = threading.Lock()


class Module:
    """``flow.deprecated.nn.Module``: subclasses write ``forward(*args)``; calling the module
    runs it, then counts the call (``call_seq_no``: how many calls finished, which op names
    are usually built from)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__call__" in cls.__dict__:  # OneFlow asserted the same (in __del__)
            raise TypeError(
                f"{cls.__qualname__} overrides __call__; a flow.deprecated.nn.Module subclass "
                "writes forward() and keeps Module.__call__ (it counts the calls)"
            )

    def __init__(self, name: str | None = None) -> None:
        warn_once(
            "flow.deprecated.nn.Module",
            "flow.deprecated.nn.Module is OneFlow's deprecated op module; it works as in "
            "OneFlow v0.4 (forward() per call, call_seq_no counts the calls)",
        )
        with _lock:
            self.module_name_ = f"Module_{next(_unnamed)}" if name is None else name
        self.call_seq_no_ = 0

    @property
    def module_name(self) -> str:
        return self.module_name_

    @property
    def call_seq_no(self) -> int:
        return self.call_seq_no_

    def forward(self, *args: Any) -> Any:
        raise NotImplementedError(f"{type(self).__qualname__} must define forward(*args)")

    def __call__(self, *args: Any) -> Any:
        result = self.forward(*args)
        self.call_seq_no_ += 1
        return result


# Per traced job body: module name -> module. A job traced again starts afresh, as OneFlow
# built each job once.
_modules: weakref.WeakKeyDictionary[Any, dict[str, Module]] = weakref.WeakKeyDictionary()


def find_or_create_module(
    module_name: str, create: Callable[[], Module], reuse: bool = False
) -> Module:
    """The job's module named ``module_name``, made by ``create()`` on first use. Asking for
    the same name again in one job body needs ``reuse=True``."""
    if not callable(create):
        raise OpError(f"find_or_create_module({module_name!r}): create must be callable")
    graph = current_graph()  # raises outside a job body
    with _lock:
        known = _modules.setdefault(graph, {})
        found = known.get(module_name)
    if found is not None:
        if not reuse:
            raise OpError(
                f"find_or_create_module: module name {module_name!r} is already used in job "
                f"{graph.name!r}; pass reuse=True to get the same module again"
            )
        return found
    module = create()
    if not isinstance(module, Module):
        raise OpError(
            f"find_or_create_module({module_name!r}): create() must return a "
            f"flow.deprecated.nn.Module, got {type(module).__name__}"
        )
    with _lock:
        known[module_name] = module
    return module
