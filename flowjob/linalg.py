"""``flow.linalg``: OneFlow's second home of ``matmul``."""

from ._src.ops.array_ops import matmul

__all__ = ["matmul"]
