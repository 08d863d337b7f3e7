"""OneFlow v0.4's experimental functional API on eager tensors (``flow.experimental.sum``,
``matmul``, ``where``, ``reshape``...) and the ``Tensor`` methods and operators that call it.

Every function here is a small body of flowjob's ops (``flowjob._src.ops``) run by
``imperative.apply``: one compiled program per shape, with autograd. On blobs inside a job the
same function records the ops into the job.
"""

from . import _methods
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
from ._arith import add, div, mul, neg, negative, pow, sub
from ._loss import cross_entropy, nll_loss
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
from ._reduce import mean, sum

_methods.register()

__all__ = ["add", "div", "mean", "mul", "neg", "negative", "pow", "sub", "sum"]
__all__ += ["elu", "gelu", "hardsigmoid", "hardswish", "hardtanh", "leaky_relu", "log_softmax"]
__all__ += ["logsigmoid", "prelu", "relu", "relu6", "sigmoid", "softmax", "softplus", "tanh"]
__all__ += ["avg_pool2d", "batch_norm", "conv2d", "cross_entropy", "dropout", "embedding"]
__all__ += ["layer_norm", "linear", "max_pool2d", "nll_loss", "upsample"]
