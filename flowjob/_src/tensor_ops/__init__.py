"""OneFlow v0.4's experimental functional API on eager tensors (``flow.experimental.sum``,
``matmul``, ``where``, ``reshape``...) and the ``Tensor`` methods and operators that call it.

Every function here is a small body of flowjob's ops (``flowjob._src.ops``) run by
``imperative.apply``: one compiled program per shape, with autograd. On blobs inside a job the
same function records the ops into the job.
"""

from . import _methods
from ._arith import add, div, mul, neg, negative, pow, sub
from ._cast import cast, to
from ._compare import eq, equal, gt, lt
from ._concat import cat
from ._creation import arange, ones, ones_like, zeros, zeros_like
from ._matmul import matmul
from ._reduce import argmax, mean, std, sum, var
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
from ._unary import (
    abs,
    arcsin,
    arcsinh,
    asin,
    asinh,
    cos,
    cosh,
    exp,
    log,
    reciprocal,
    rsqrt,
    sin,
    sqrt,
    square,
)

_methods.register()

__all__ = [
    "abs",
    "add",
    "arange",
    "arcsin",
    "arcsinh",
    "argmax",
    "argwhere",
    "asin",
    "asinh",
    "broadcast_like",
    "cast",
    "cat",
    "cos",
    "cosh",
    "div",
    "eq",
    "equal",
    "exp",
    "expand",
    "flatten",
    "gather",
    "gt",
    "log",
    "logical_slice_assign",
    "lt",
    "masked_fill",
    "matmul",
    "mean",
    "mul",
    "neg",
    "negative",
    "ones",
    "ones_like",
    "permute",
    "pow",
    "reciprocal",
    "repeat",
    "reshape",
    "rsqrt",
    "sin",
    "slice",
    "slice_update",
    "sqrt",
    "square",
    "squeeze",
    "std",
    "sub",
    "sum",
    "tmp",
    "to",
    "transpose",
    "unsqueeze",
    "var",
    "where",
    "zeros",
    "zeros_like",
]
