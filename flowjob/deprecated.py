"""``flow.deprecated``: OneFlow's old spellings kept under this name (each warns once)."""

from types import SimpleNamespace

from ._src._legacy import name_scope as variable_scope
from ._src.runtime import delete_worker_by_bootstrap, delete_worker_of_multi_process
from .userop import Module

# flow.deprecated.nn.Module: OneFlow's op module (userop/_module.py)
nn = SimpleNamespace(Module=Module)

__all__ = [
    "delete_worker_by_bootstrap",
    "delete_worker_of_multi_process",
    "nn",
    "variable_scope",
]
