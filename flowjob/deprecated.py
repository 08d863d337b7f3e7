"""``flow.deprecated``: OneFlow's old spellings kept under this name (each warns once)."""

from types import SimpleNamespace

from ._src import legacy as _legacy
from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.processes import delete_worker_by_bootstrap, delete_worker_of_multi_process
from .userop import Module

# flow.deprecated.nn.Module: OneFlow's op module (userop/_module.py)
nn = SimpleNamespace(Module=Module)

__all__ = [
    "delete_worker_by_bootstrap",
    "delete_worker_of_multi_process",
    "nn",
]


# OneFlow's deprecated spellings served here (each warns once when used, as OneFlow did).
_deprecations = {
    "variable_scope": _legacy.name_scope,
}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
