"""``flow.nn``: the job-body ops of ``flowjob._src.ops.nn`` (convolution, pooling, normalization,
losses...) and the eager module API (``Module``, ``Parameter``, ``init``) with OneFlow v0.4's
layers (``Linear``, ``Conv2d``, ``ReLU``, ``BatchNorm2d``, ``CrossEntropyLoss``...)."""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.imperative import Module, Parameter, init
from ._src.nn_modules import *  # noqa: F403 - OneFlow v0.4's layers (Linear, Conv2d, ReLU...)
from ._src.nn_modules import __all__ as _layers
from ._src.ops import nn as _ops_nn
from ._src.ops.nn import *  # noqa: F403 - this namespace is ops.nn's plus the eager names

__all__ = [*_ops_nn.__all__, "Module", "Parameter", "init"]
__all__ += _layers


_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
