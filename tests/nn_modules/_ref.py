"""What the nn_modules tests share: running a layer forward and backward on NumPy inputs."""

from __future__ import annotations

import numpy as np

import flowjob.experimental as flow


def forward_backward(fn, *arrays, cotangent_seed=0):
    """``fn(*tensors)`` on float tensors requiring grad, then backward of ``sum(out * w)``
    for a fixed random ``w``: (output, w, input gradients)."""
    tensors = [flow.Tensor(a, dtype=flow.float64, requires_grad=True) for a in arrays]
    out = fn(*tensors)
    w = np.random.default_rng(cotangent_seed).normal(size=tuple(out.shape))
    (out * flow.Tensor(w, dtype=flow.float64)).sum().backward()
    return out.numpy(), w, [t.grad.numpy() for t in tensors]
