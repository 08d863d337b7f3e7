"""OneFlow v0.4's experimental functional API on eager tensors (``flow.experimental.sum``,
``matmul``, ``where``, ``reshape``...) and the ``Tensor`` methods and operators that call it.

Every function here is a small body of flowjob's ops (``flowjob._src.ops``) run by
``imperative.apply``: one compiled program per shape, with autograd. On blobs inside a job the
same function records the ops into the job.
"""

from . import _methods
from ._arith import add, div, mul, neg, negative, pow, sub
from ._reduce import mean, sum

_methods.register()

__all__ = ["add", "div", "mean", "mul", "neg", "negative", "pow", "sub", "sum"]
