"""Max pooling with its gradient written out: each gradient goes to the first maximum of its
window (row-major), as ``reduce_window``'s select-and-scatter routes it.

JAX's own gradient of an overlapping ``reduce_window`` max made XLA:CPU build index tensors
(``wrapped_iota`` on ``s32[8,64,114,114]``: 170 ms of a ResNet-50 step, bench/NOTES.md); the
masks below are elementwise work that XLA fuses into one loop.
"""

from __future__ import annotations

import functools
import itertools

import jax
import jax.numpy as jnp
from jax import lax


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def block_max(blocks: jax.Array, window_axes: tuple[int, int]) -> jax.Array:
    """The maximum over ``window_axes`` of non-overlapping windows laid out as axes."""
    return jnp.max(blocks, axis=window_axes)


def _block_max_fwd(blocks, window_axes):
    out = jnp.max(blocks, axis=window_axes)
    return out, (blocks, out)


def _block_max_bwd(window_axes, res, g):
    blocks, out = res
    a0, a1 = window_axes
    k0, k1 = blocks.shape[a0], blocks.shape[a1]
    pos_shape = [1] * blocks.ndim
    pos_shape[a0], pos_shape[a1] = k0, k1
    position = jnp.arange(k0 * k1, dtype=jnp.int32).reshape(pos_shape)
    hit = blocks == jnp.expand_dims(out, window_axes)
    first = jnp.min(jnp.where(hit, position, k0 * k1), axis=window_axes, keepdims=True)
    grad = jnp.where(position == first, jnp.expand_dims(g, window_axes), 0)
    return (grad.astype(blocks.dtype),)


block_max.defvjp(_block_max_fwd, _block_max_bwd)


@functools.partial(jax.custom_vjp, nondiff_argnums=(1, 2, 3, 4))
def window_max(
    x: jax.Array,
    init: float | int,
    window: tuple[int, ...],
    strides: tuple[int, ...],
    padding: tuple[tuple[int, int], ...],
) -> jax.Array:
    """``lax.reduce_window(x, init, lax.max, window, strides, padding)``; ``init`` pads."""
    return lax.reduce_window(x, init, lax.max, window, strides, padding)


def _window_max_fwd(x, init, window, strides, padding):
    y = window_max(x, init, window, strides, padding)
    return y, (x, y)


def _window_max_bwd(init, window, strides, padding, res, g):
    # For each window offset: the inputs it reads for every output (a strided slice of the
    # padded input), those equal to the maximum and not claimed by an earlier offset, their
    # gradient put back in place by a pad with interior padding (the stride's gaps).
    x, y = res
    xp = lax.pad(x, jnp.asarray(init, x.dtype), [(lo, hi, 0) for lo, hi in padding])
    zero = jnp.zeros((), g.dtype)
    dxp = jnp.zeros(xp.shape, g.dtype)
    taken = None
    for offset in itertools.product(*(range(k) for k in window)):
        limit = [o + (n - 1) * s + 1 for o, n, s in zip(offset, y.shape, strides)]
        hit = lax.slice(xp, offset, limit, strides) == y
        chosen = hit if taken is None else hit & ~taken
        taken = hit if taken is None else taken | hit
        spread = [(o, n - lim, s - 1) for o, lim, s, n in zip(offset, limit, strides, xp.shape)]
        dxp = dxp + lax.pad(jnp.where(chosen, g, zero), zero, spread)
    inside = tuple(slice(lo, lo + n) for (lo, _), n in zip(padding, x.shape))
    return (dxp[inside],)


window_max.defvjp(_window_max_fwd, _window_max_bwd)
