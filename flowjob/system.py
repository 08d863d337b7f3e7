"""``flow.system``: OneFlow's ``system.assign`` (write a value into a variable)."""

from ._src.ops import system_assign as assign

__all__ = ["assign"]
