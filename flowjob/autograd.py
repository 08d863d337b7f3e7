"""``flow.autograd``: reverse-mode differentiation of eager tensors (OneFlow v0.4's
``oneflow.experimental`` API): ``backward``, ``grad``, and the recording switches
``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``is_grad_enabled``."""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.autograd import (
    Node,
    backward,
    enable_grad,
    grad,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)

__all__ = [
    "Node",
    "backward",
    "enable_grad",
    "grad",
    "is_grad_enabled",
    "no_grad",
    "set_grad_enabled",
]

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
