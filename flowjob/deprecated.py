"""``flow.deprecated``: OneFlow's old spellings kept under this name (each warns once)."""

from ._legacy import name_scope as variable_scope

__all__ = ["variable_scope"]
