"""The start of OneFlow v0.4's eager API on JAX arrays: ``flow.Tensor``, ``flow.tensor``,
``flow.nn.Module``, ``flow.nn.Parameter`` and ``flow.nn.init`` (no autograd, no eager op
library: job functions remain flowjob's way to compute and train)."""

from . import init
from ._collective import eager_nccl_all_reduce
from ._dispatch import apply
from ._factory import tensor
from ._gain import calculate_gain
from ._module import Module, Parameter
from ._storage import device
from ._tensor import Tensor, TensorFeatureError

__all__ = [
    "apply",
    "Module",
    "Parameter",
    "Tensor",
    "TensorFeatureError",
    "calculate_gain",
    "device",
    "eager_nccl_all_reduce",
    "init",
    "tensor",
]
