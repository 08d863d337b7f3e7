"""``flow.math``: elementwise math, activations, reductions, comparisons and matmul."""

from ._activations import (
    gelu,
    gelu_grad,
    log_sigmoid,
    log_softmax,
    relu,
    sigmoid,
    sigmoid_grad,
    sigmoid_v2,
    softmax,
    softplus,
    tanh,
    tanh_v2,
)
from ._binary import (
    add,
    atan2,
    divide,
    equal,
    floor_mod,
    floordiv,
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
    xdivy,
    xlogy,
)
from ._fused import fused_scale_tril, fused_scale_tril_softmax_dropout
from ._linalg import add_n, matmul, polyval, tril
from ._normalization import l2_normalize
from ._reduce import (
    reduce_all,
    reduce_any,
    reduce_euclidean_norm,
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_std,
    reduce_sum,
    reduce_variance,
    reduced_shape_elem_cnt,
)
from ._scatter import unsorted_batch_segment_sum, unsorted_segment_sum, unsorted_segment_sum_like
from ._shape import broadcast_to_compatible_with
from ._sort import argmax, in_top_k, top_k
from ._unary import (
    abs,
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atanh,
    ceil,
    clip_by_value,
    cos,
    cosh,
    erf,
    erfc,
    exp,
    expm1,
    floor,
    lgamma,
    log,
    log1p,
    negative,
    reciprocal,
    reciprocal_no_nan,
    rint,
    round,
    rsqrt,
    sign,
    sin,
    sinh,
    sqrt,
    square,
    tan,
)

mod = floor_mod

__all__ = [
    "add", "subtract", "multiply", "divide", "mod", "floor_mod", "pow", "maximum", "minimum",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
    "squared_difference", "add_n", "matmul", "argmax", "top_k", "softmax", "log_softmax",
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_variance",
    "relu", "sigmoid", "tanh", "gelu", "exp", "log", "log1p", "sqrt", "rsqrt", "reciprocal",
    "square", "abs", "negative", "sign", "floor", "ceil", "round", "sin", "cos", "softplus",
    "clip_by_value", "reduce_all", "reduce_any", "reduce_euclidean_norm", "reduce_logsumexp",
    "reduce_std", "atan2", "floordiv", "xdivy", "xlogy", "acos", "acosh", "asin", "asinh",
    "atan", "atanh", "cosh", "sinh", "tan", "erf", "erfc", "expm1", "lgamma", "log_sigmoid",
    "reciprocal_no_nan", "rint", "sigmoid_v2", "tanh_v2", "tril", "in_top_k", "polyval",
    "l2_normalize", "broadcast_to_compatible_with", "unsorted_segment_sum",
    "unsorted_segment_sum_like", "unsorted_batch_segment_sum", "gelu_grad", "sigmoid_grad",
    "reduced_shape_elem_cnt", "fused_scale_tril", "fused_scale_tril_softmax_dropout",
]
