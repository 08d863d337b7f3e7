"""``flow.linalg``: OneFlow's second home of ``matmul``."""

from .ops.array_ops import matmul

__all__ = ["matmul"]
