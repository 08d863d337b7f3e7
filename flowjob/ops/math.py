"""``flow.math``: elementwise math, activations, reductions, comparisons and matmul."""

from ._array_v04 import fused_scale_tril, tril
from ._binary import (
    add,
    divide,
    equal,
    floor_mod,
    greater,
    greater_equal,
    less,
    less_equal,
    logical_and,
    maximum,
    minimum,
    multiply,
    not_equal,
    pow,
    squared_difference,
    subtract,
)
from ._linalg import add_n, matmul
from ._math_v04 import (
    l2_normalize,
    polyval,
    unsorted_batch_segment_sum,
    unsorted_segment_sum,
    unsorted_segment_sum_like,
)
from ._reduce import (
    argmax,
    log_softmax,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
    reduce_variance,
    softmax,
    top_k,
)
from ._unary import (
    abs,
    ceil,
    clip_by_value,
    cos,
    exp,
    floor,
    gelu,
    log,
    log1p,
    negative,
    reciprocal,
    relu,
    round,
    rsqrt,
    sigmoid,
    sign,
    sin,
    softplus,
    sqrt,
    square,
    tanh,
)

mod = floor_mod

__all__ = [
    "tril", "fused_scale_tril", "l2_normalize", "polyval", "unsorted_segment_sum",
    "unsorted_batch_segment_sum", "unsorted_segment_sum_like",
    "add", "subtract", "multiply", "divide", "mod", "floor_mod", "pow", "maximum", "minimum",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
    "squared_difference", "add_n", "matmul", "argmax", "top_k", "softmax", "log_softmax",
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_variance",
    "relu", "sigmoid", "tanh", "gelu", "exp", "log", "log1p", "sqrt", "rsqrt", "reciprocal",
    "square", "abs", "negative", "sign", "floor", "ceil", "round", "sin", "cos", "softplus",
    "clip_by_value",
]
