"""Top-level array ops (``flow.reshape``, ``flow.concat``, ``flow.matmul``...)."""

from ._array import (
    cast,
    constant,
    constant_like,
    constant_scalar,
    gather,
    identity,
    one_hot,
    ones,
    ones_like,
    where,
    zeros,
    zeros_like,
)
from ._array_more import (
    argsort,
    broadcast_to_compatible_with,
    diag,
    expand,
    masked_fill,
    range,
    reverse,
    sort,
)
from ._index import gather_nd, identity_n, slice_update
from ._linalg import matmul
from ._misc_ops import amp_white_identity, count_not_finite, multi_count_not_finite, reshape_like
from ._pad2d import constant_pad2d, reflection_pad2d, replication_pad2d, zero_pad2d
from ._scatter import (
    dim_gather,
    scatter_nd,
    tensor_scatter_nd_add,
    tensor_scatter_nd_update,
    unsorted_batch_segment_sum,
    unsorted_segment_sum,
    unsorted_segment_sum_like,
)
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
    "matmul", "gather_nd", "identity_n", "slice_update", "argsort", "sort", "diag", "expand",
    "masked_fill", "reverse", "broadcast_to_compatible_with", "constant_pad2d", "zero_pad2d",
    "reflection_pad2d", "replication_pad2d", "dim_gather", "scatter_nd", "tensor_scatter_nd_add",
    "tensor_scatter_nd_update", "unsorted_segment_sum", "unsorted_segment_sum_like",
    "unsorted_batch_segment_sum", "constant_scalar", "range",
    "amp_white_identity", "count_not_finite", "multi_count_not_finite", "reshape_like",
]
