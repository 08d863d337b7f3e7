"""``flow.math``: elementwise math, activations, reductions, comparisons and matmul."""

from ._array_more import broadcast_to_compatible_with, in_top_k, l2_normalize, polyval, tril
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
from ._binary_math import atan2, floordiv, xdivy, xlogy
from ._fused_ops import fused_scale_tril, fused_scale_tril_softmax_dropout
from ._linalg import add_n, matmul
from ._misc_ops import gelu_grad, reduced_shape_elem_cnt, sigmoid_grad
from ._reduce import (
    argmax,
    log_softmax,
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
    softmax,
    top_k,
)
from ._scatter import unsorted_batch_segment_sum, unsorted_segment_sum, unsorted_segment_sum_like
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
from ._unary_math import (
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atanh,
    cosh,
    erf,
    erfc,
    expm1,
    lgamma,
    log_sigmoid,
    reciprocal_no_nan,
    rint,
    sigmoid_v2,
    sinh,
    tan,
    tanh_v2,
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
