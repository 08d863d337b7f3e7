"""OneFlow v0.4's experimental functional API on eager tensors (``flow.experimental.sum``,
``matmul``, ``where``, ``reshape``...) and the ``Tensor`` methods and operators that call it.

Every function here is a small body of flowjob's ops (``flowjob._src.ops``) run by
``imperative.apply``: one compiled program per shape, with autograd. On blobs inside a job the
same function records the ops into the job.
"""

from . import (
    _methods,
)
from ._activation import (
    elu,
    gelu,
    hardsigmoid,
    hardswish,
    hardtanh,
    leaky_relu,
    log_softmax,
    logsigmoid,
    prelu,
    relu,
    relu6,
    sigmoid,
    softmax,
    softplus,
    tanh,
)
from ._arith import (
    add,
    div,
    mul,
    neg,
    negative,
    pow,
    sub,
)
from ._cast import (
    cast,
    to,
)
from ._compare import (
    eq,
    equal,
    gt,
    lt,
)
from ._concat import (
    cat,
)
from ._creation import (
    arange,
    ones,
    ones_like,
    zeros,
    zeros_like,
)
from ._loss import (
    cross_entropy,
    nll_loss,
)
from ._matmul import (
    matmul,
)
from ._nn import (
    avg_pool2d,
    batch_norm,
    conv2d,
    dropout,
    embedding,
    layer_norm,
    linear,
    max_pool2d,
    upsample,
)
from ._reduce import (
    argmax,
    mean,
    std,
    sum,
    var,
)
from ._select import (
    argwhere,
    gather,
    masked_fill,
    where,
)
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
from ._slice import (
    logical_slice_assign,
    slice,
    slice_update,
)
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
    "avg_pool2d",
    "batch_norm",
    "broadcast_like",
    "cast",
    "cat",
    "conv2d",
    "cos",
    "cosh",
    "cross_entropy",
    "div",
    "dropout",
    "elu",
    "embedding",
    "eq",
    "equal",
    "exp",
    "expand",
    "flatten",
    "gather",
    "gelu",
    "gt",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "layer_norm",
    "leaky_relu",
    "linear",
    "log",
    "log_softmax",
    "logical_slice_assign",
    "logsigmoid",
    "lt",
    "masked_fill",
    "matmul",
    "max_pool2d",
    "mean",
    "mul",
    "neg",
    "negative",
    "nll_loss",
    "ones",
    "ones_like",
    "permute",
    "pow",
    "prelu",
    "reciprocal",
    "relu",
    "relu6",
    "repeat",
    "reshape",
    "rsqrt",
    "sigmoid",
    "sin",
    "slice",
    "slice_update",
    "softmax",
    "softplus",
    "sqrt",
    "square",
    "squeeze",
    "std",
    "sub",
    "sum",
    "tanh",
    "to",
    "transpose",
    "unsqueeze",
    "upsample",
    "var",
    "where",
    "zeros",
    "zeros_like",
]
