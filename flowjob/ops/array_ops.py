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
from ._array_v04 import diag, expand, masked_fill, range, reverse
from ._linalg import matmul
from ._math_v04 import count_not_finite, multi_count_not_finite, smooth_l1_loss
from ._pad2d import constant_pad2d, reflection_pad2d, replication_pad2d, zero_pad2d
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
    "matmul", "diag", "masked_fill", "range", "reverse", "count_not_finite",
    "multi_count_not_finite", "constant_pad2d", "zero_pad2d", "reflection_pad2d",
    "replication_pad2d", "expand", "smooth_l1_loss",
]
