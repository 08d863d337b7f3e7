"""``flow.system``: OneFlow's ``system.assign`` (write a value into a variable)."""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.ops import system_assign as assign

__all__ = ["assign"]


_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
