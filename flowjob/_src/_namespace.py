"""What the public namespaces (the files at the top of ``flowjob/``) do besides re-exporting:
serve OneFlow's deprecated spellings, which each namespace lists as data, and name the
nearest public name when an attribute is misspelt.

Each namespace file ends with::

    _deprecations = {"old_name": legacy.old_name, ...}
    __getattr__, __dir__ = namespace_attributes(__name__, _deprecations)
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Callable, Mapping
from typing import Any

# Every object some namespace lists as deprecated (flow.is_deprecated reads it).
_DEPRECATED: list[Any] = []


def is_listed_deprecated(obj: Any) -> bool:
    """True if a public namespace lists ``obj`` as one of OneFlow's deprecated spellings."""
    return any(obj is d for d in _DEPRECATED)


def _public_name(module_name: str) -> str:
    return "flow" + module_name[len("flowjob") :]


def namespace_attributes(
    module_name: str, deprecations: Mapping[str, Any], fallback: str | None = None
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of the public namespace ``module_name``.

    ``__getattr__`` returns a deprecated spelling (which warns once when used, as OneFlow
    did), the attribute of the ``fallback`` namespace (``flow.experimental`` also holds every
    name of ``flow``, as in OneFlow v0.4) or raises ``AttributeError`` naming the closest
    public name:

    >>> import flowjob as flow
    >>> flow.nn.rleu
    Traceback (most recent call last):
    ...
    AttributeError: flow.nn has no attribute 'rleu'. Did you mean 'relu'?
    """
    _DEPRECATED.extend(deprecations.values())

    def names() -> list[str]:
        module = sys.modules[module_name]
        return sorted({*vars(module), *deprecations})

    def __getattr__(name: str) -> Any:
        if name in deprecations:
            return deprecations[name]
        if fallback is not None and not name.startswith("_"):
            try:
                return getattr(sys.modules[fallback], name)
            except AttributeError:
                pass
        if name.startswith("__"):  # probes such as __path__ or __wrapped__: a plain miss
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        public = {n.lower(): n for n in names() if not n.startswith("_")}
        close = difflib.get_close_matches(name.lower(), list(public), n=1, cutoff=0.6)
        hint = f". Did you mean {public[close[0]]!r}?" if close else ""
        raise AttributeError(f"{_public_name(module_name)} has no attribute {name!r}{hint}")

    return __getattr__, names
