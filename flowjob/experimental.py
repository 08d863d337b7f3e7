"""``flow.experimental``: of OneFlow v0.4's experimental namespace, flowjob has the legacy
ops exported there (``unique_with_counts``, ``indexed_slices_reduce_sum``, ``square_sum``,
eager mode's one-to-one ``eager_assign_121``) and the Python-kernel custom op modules
(``custom_op_module``); the rest of it (the eager ``nn.Module`` API of OneFlow 0.5) is not
part of the legacy API flowjob re-creates."""

from __future__ import annotations

from .ops import eager_assign_121, indexed_slices_reduce_sum, square_sum, unique_with_counts
from .userop import CustomOpModule, custom_op_module

__all__ = [
    "CustomOpModule",
    "custom_op_module",
    "eager_assign_121",
    "indexed_slices_reduce_sum",
    "square_sum",
    "unique_with_counts",
]
