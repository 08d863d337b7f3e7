"""``oneflow.python.framework.distribute``: the SBP helpers programs import by this path
(OneFlow-Benchmark's ``Generative/layers.py`` does); the same objects as ``flow.distribute``."""

from flowjob._src.distribute import (
    auto,
    broadcast,
    consistent_strategy,
    mirrored_strategy,
    parallel_cast,
    split,
)

__all__ = [
    "auto",
    "broadcast",
    "split",
    "consistent_strategy",
    "mirrored_strategy",
    "parallel_cast",
]
