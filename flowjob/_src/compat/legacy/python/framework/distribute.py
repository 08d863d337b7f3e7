"""``oneflow.python.framework.distribute``: the SBP helpers programs import by this path
(OneFlow-Benchmark's ``Generative/layers.py`` does); the same objects as ``flow.distribute``."""

from flowjob._src.distribute import auto, broadcast, parallel_cast, split
from flowjob._src.legacy import consistent_strategy, mirrored_strategy

__all__ = [
    "auto",
    "broadcast",
    "split",
    "consistent_strategy",
    "mirrored_strategy",
    "parallel_cast",
]
