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
from ._matmul import matmul
from ._reduce import argmax, mean, std, sum, var
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
    "arcsin",
    "arcsinh",
    "argmax",
    "asin",
    "asinh",
    "cast",
    "cos",
    "cosh",
    "div",
    "eq",
    "equal",
    "exp",
    "gt",
    "log",
    "lt",
    "matmul",
    "mean",
    "mul",
    "neg",
    "negative",
    "pow",
    "reciprocal",
    "rsqrt",
    "sin",
    "sqrt",
    "square",
    "std",
    "sub",
    "sum",
    "to",
    "var",
]
