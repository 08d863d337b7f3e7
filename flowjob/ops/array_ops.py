"""Top-level array ops (``flow.reshape``, ``flow.concat``, ``flow.matmul``...)."""

from ._array import (
    cast,
    constant,
    constant_like,
    gather,
    identity,
    one_hot,
    ones,
    ones_like,
    where,
    zeros,
    zeros_like,
)
from ._index import gather_nd, identity_n, slice_update
from ._linalg import matmul
from ._shape import (
    broadcast_like,
    concat,
    expand_dims,
    flatten,
    pad,
    reshape,
    slice,
    slice_v2,
    split,
    squeeze,
    stack,
    transpose,
)

__all__ = [
    "reshape", "flatten", "transpose", "concat", "stack", "split", "slice", "slice_v2",
    "squeeze", "expand_dims", "pad", "broadcast_like", "gather", "one_hot", "cast", "where",
    "constant", "constant_like", "zeros", "ones", "zeros_like", "ones_like", "identity",
    "matmul", "gather_nd", "identity_n", "slice_update",
]
