"""``flow.deprecated``: OneFlow's old spellings kept under this name (each warns once)."""

from ._legacy import name_scope as variable_scope
from .runtime import delete_worker_by_bootstrap, delete_worker_of_multi_process

__all__ = ["delete_worker_by_bootstrap", "delete_worker_of_multi_process", "variable_scope"]
