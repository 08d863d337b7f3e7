"""Top-level array ops (``flow.reshape``, ``flow.concat``, ``flow.matmul``...)."""

from ._assign import assign
from ._concat import concat, split, stack
from ._creation import (
    amp_white_identity,
    cast,
    constant,
    constant_like,
    constant_scalar,
    identity,
    identity_n,
    ones,
    ones_like,
    range,
    zeros,
    zeros_like,
)
from ._data_dependent import argwhere, nonzero, sync_dynamic_resize
from ._dynamic import cast_to_static_shape, dynamic_reshape, elem_cnt
from ._indexing import dim_gather, gather, gather_nd, masked_fill, one_hot, where
from ._linalg import diag, matmul
from ._micro_batch import acc, pack, repeat, unpack
from ._ordinal_encode import categorical_ordinal_encode
from ._pad import constant_pad2d, pad, reflection_pad2d, replication_pad2d, zero_pad2d
from ._padding import pad_grad, same_padding
from ._partial_fc import distributed_partial_fc_sample
from ._reduce import count_not_finite, multi_count_not_finite
from ._scatter import (
    scatter_nd,
    tensor_scatter_nd_add,
    tensor_scatter_nd_update,
    unsorted_batch_segment_sum,
    unsorted_segment_sum,
    unsorted_segment_sum_like,
)
from ._shape import (
    broadcast_like,
    broadcast_to_compatible_with,
    expand,
    expand_dims,
    flatten,
    reshape,
    reshape_like,
    squeeze,
    transpose,
)
from ._slicing import reverse, slice, slice_update, slice_v2
from ._sort import argsort, sort

__all__ = [
    "distributed_partial_fc_sample",
    "categorical_ordinal_encode",
    "acc",
    "pack",
    "repeat",
    "unpack",
    "argwhere",
    "nonzero",
    "sync_dynamic_resize",
    "reshape",
    "flatten",
    "transpose",
    "concat",
    "stack",
    "split",
    "slice",
    "slice_v2",
    "squeeze",
    "expand_dims",
    "pad",
    "broadcast_like",
    "gather",
    "one_hot",
    "cast",
    "where",
    "constant",
    "constant_like",
    "zeros",
    "ones",
    "zeros_like",
    "ones_like",
    "identity",
    "matmul",
    "gather_nd",
    "identity_n",
    "slice_update",
    "argsort",
    "sort",
    "diag",
    "expand",
    "masked_fill",
    "reverse",
    "broadcast_to_compatible_with",
    "constant_pad2d",
    "zero_pad2d",
    "reflection_pad2d",
    "replication_pad2d",
    "dim_gather",
    "scatter_nd",
    "tensor_scatter_nd_add",
    "tensor_scatter_nd_update",
    "unsorted_segment_sum",
    "unsorted_segment_sum_like",
    "unsorted_batch_segment_sum",
    "constant_scalar",
    "range",
    "amp_white_identity",
    "count_not_finite",
    "multi_count_not_finite",
    "reshape_like",
    "assign",
    "pad_grad",
    "same_padding",
    "cast_to_static_shape",
    "dynamic_reshape",
    "elem_cnt",
]
