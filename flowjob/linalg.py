"""``flow.linalg``: OneFlow's second home of ``matmul``."""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.ops.array_ops import matmul

__all__ = ["matmul"]


_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
