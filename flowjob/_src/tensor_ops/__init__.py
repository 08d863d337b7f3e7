"""OneFlow v0.4's experimental functional API on eager tensors (``flow.experimental.sum``,
``matmul``, ``where``, ``reshape``...) and the ``Tensor`` methods and operators that call it.

Every function here is a small body of flowjob's ops (``flowjob._src.ops``) run by
``imperative.apply``: one compiled program per shape, with autograd. On blobs inside a job the
same function records the ops into the job.
"""

from . import _methods
from ._arith import add, div, mul, neg, negative, pow, sub
from ._concat import cat
from ._creation import arange, ones, ones_like, zeros, zeros_like
from ._reduce import mean, sum
from ._select import argwhere, gather, masked_fill, where
from ._shape import (
    broadcast_like,
    expand,
    flatten,
    permute,
    repeat,
    reshape,
    squeeze,
    transpose,
    unsqueeze,
)
from ._slice import logical_slice_assign, slice, slice_update, tmp

_methods.register()

__all__ = ["add", "div", "mean", "mul", "neg", "negative", "pow", "sub", "sum"]
__all__ += ["arange", "argwhere", "broadcast_like", "cat", "expand", "flatten", "gather"]
__all__ += ["logical_slice_assign", "masked_fill", "ones", "ones_like", "permute", "repeat"]
__all__ += ["reshape", "slice", "slice_update", "squeeze", "tmp", "transpose", "unsqueeze"]
__all__ += ["where", "zeros", "zeros_like"]
