"""``flow.random``: random sources of the host data pipeline, random ops of the job body, and
OneFlow's seed helper."""

from ._src.random import (
    CoinFlip,
    bernoulli,
    coin_flip,
    gen_seed,
    generate_random_batch_permutation_indices,
    shuffle,
)
