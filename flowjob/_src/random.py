"""``flow.random``: random sources of the host data pipeline, random ops of the job body, and
OneFlow's seed helper."""

from __future__ import annotations

import random as _random
import sys

from .data import CoinFlip
from .ops import bernoulli, generate_random_batch_permutation_indices, shuffle

coin_flip = CoinFlip


def gen_seed(seed: int | None = None) -> tuple[int, bool]:
    """OneFlow's ``(seed, has_seed)`` for a random op: ``seed`` if given, else a fresh random
    one (flowjob's blobs are consistent: OneFlow's mirrored view answered ``(-1, False)``)."""
    if seed is None:
        return _random.randint(-sys.maxsize, sys.maxsize), True
    return seed, True


__all__ = [
    "CoinFlip",
    "bernoulli",
    "coin_flip",
    "gen_seed",
    "generate_random_batch_permutation_indices",
    "shuffle",
]
