"""``flow.experimental``: the legacy ops OneFlow v0.4 exported under this namespace
(its eager ``experimental.nn`` modules are not part of flowjob)."""

from .ops import indexed_slices_reduce_sum, square_sum, unique_with_counts

__all__ = ["indexed_slices_reduce_sum", "square_sum", "unique_with_counts"]
