"""``flow.random``: random sources of the host data pipeline, random ops of the job body, and
OneFlow's seed helper."""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.random import (
    CoinFlip,
    bernoulli,
    coin_flip,
    gen_seed,
    generate_random_batch_permutation_indices,
    shuffle,
)

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
