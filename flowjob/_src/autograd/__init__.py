"""Reverse-mode autograd for OneFlow v0.4's eager tensors (``oneflow.experimental``).

A small engine in the manner of PyTorch's ``torch/autograd``: every op run on tensors that
require grad records a ``Node`` (an ``Edge`` to where each input's gradient goes, and the
op's vector-Jacobian product, from ``jax.vjp`` of the op's program); ``backward`` walks the
nodes from the outputs in reverse topological order and accumulates leaf gradients.
``no_grad`` and ``enable_grad`` switch recording per thread. The engine knows tensors only
through the small protocol of ``Node``'s docstring.
"""

from ._engine import GraphFreedError, backward, grad
from ._grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from ._node import Edge, Node

__all__ = [
    "Edge",
    "GraphFreedError",
    "Node",
    "backward",
    "enable_grad",
    "grad",
    "is_grad_enabled",
    "no_grad",
    "set_grad_enabled",
]
