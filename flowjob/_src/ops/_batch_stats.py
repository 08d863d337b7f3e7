"""Training-mode batch normalization with its gradient written out.

JAX's own gradient of ``(x - mean) * rsqrt(var + eps)`` follows the two reductions and the
broadcasts one by one, and XLA:CPU ran it as eight or so passes over the activation (batch
norm and ReLU on ``f32[8,512,28,28]``: 20.7 ms forward and backward against PyTorch's 12.6;
bench/NOTES.md, session 16). The textbook gradient needs two: one that sums ``dy`` and
``dy * x̂`` per channel, one that forms ``dx``::

    dx = gamma * inv * (dy - sum(dy) / n - x̂ * sum(dy * x̂) / n)

The forward pass keeps the two-pass variance (the mean first, then the mean square of
``x - mean``): a one-pass ``E[x²] - E[x]²`` loses the variance of data far from zero.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
from jax import lax


@functools.partial(jax.custom_vjp, nondiff_argnums=(3, 4))
def normalize(x: jax.Array, gamma: jax.Array, beta: jax.Array, axis: int, epsilon: float):
    """``(y, mean, var)``: ``x`` normalized over every axis but ``axis`` with the batch's own
    statistics, then scaled by ``gamma`` and shifted by ``beta``; float32 or wider inside,
    ``y`` in ``x``'s dtype.

    >>> x = jnp.arange(6.0).reshape(3, 2)
    >>> y, mean, var = normalize(x, jnp.ones(2), jnp.zeros(2), 1, 0.0)
    >>> mean.tolist(), var.tolist(), [round(v, 4) for v in y[:, 0].tolist()]
    ([2.0, 3.0], [2.6666667461395264, 2.6666667461395264], [-1.2247, 0.0, 1.2247])
    """
    return _forward(x, gamma, beta, axis, epsilon)[0]


def channel_shape(ndim: int, axis: int, size: int) -> list[int]:
    """The shape a per-channel vector of ``size`` takes to broadcast along ``axis`` of an
    ``ndim``-dimensional array.

    >>> channel_shape(4, 1, 3)
    [1, 3, 1, 1]
    """
    shape = [1] * ndim
    shape[axis] = size
    return shape


def _forward(x, gamma, beta, axis, epsilon):
    compute = jnp.promote_types(x.dtype, jnp.float32)
    xc = x.astype(compute)
    axes = tuple(a for a in range(x.ndim) if a != axis)
    shape = channel_shape(x.ndim, axis, x.shape[axis])
    mean = jnp.mean(xc, axis=axes)
    var = jnp.mean(jnp.square(xc - mean.reshape(shape)), axis=axes)
    inv = lax.rsqrt(var + epsilon)
    scale = (gamma.astype(compute) * inv).reshape(shape)
    # centred first: xc * scale - mean * scale would cancel for data far from zero
    y = (xc - mean.reshape(shape)) * scale + beta.astype(compute).reshape(shape)
    return (y.astype(x.dtype), mean, var), (x, mean, inv, gamma)


def _fwd(x, gamma, beta, axis, epsilon):
    out, residuals = _forward(x, gamma, beta, axis, epsilon)
    return out, (*residuals, beta)


def _bwd(axis, epsilon, residuals, cotangents):
    x, mean, inv, gamma, beta = residuals
    dy, dmean, dvar = cotangents
    compute = mean.dtype
    axes = tuple(a for a in range(x.ndim) if a != axis)
    shape = channel_shape(x.ndim, axis, x.shape[axis])
    n = math.prod(x.shape[a] for a in axes)
    centered = x.astype(compute) - mean.reshape(shape)
    xhat = centered * inv.reshape(shape)
    dy = dy.astype(compute)
    sum_dy = jnp.sum(dy, axis=axes)  # beta's gradient
    sum_dy_xhat = jnp.sum(dy * xhat, axis=axes)  # gamma's gradient
    g = gamma.astype(compute)
    dx = (g * inv).reshape(shape) * (
        dy - (sum_dy / n).reshape(shape) - xhat * (sum_dy_xhat / n).reshape(shape)
    )
    # the statistics themselves (the moving averages stop their gradient, so these are
    # zeros there; kept for any other use)
    dx = dx + (dmean / n).reshape(shape) + centered * (2.0 * dvar / n).reshape(shape)
    return (
        dx.astype(x.dtype),
        sum_dy_xhat.astype(gamma.dtype),
        sum_dy.astype(beta.dtype),
    )


normalize.defvjp(_fwd, _bwd)
