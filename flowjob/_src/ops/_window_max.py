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

# Windows of at most this many elements are taken position by position (an elementwise
# maximum of strided slices, which XLA fuses with the producer, e.g. a ReLU, into one loop);
# larger ones are a reduction over the windows laid out as axes.
_UNROLLED = 16


def as_blocks(
    x: jax.Array, axes: tuple[int, int], ksize: tuple[int, int]
) -> tuple[jax.Array, tuple[int, int]]:
    """``x`` with each of ``axes`` (ascending) split in two, (windows, k), and the two new
    axes that run within a window."""
    shape: list[int] = []
    for axis, n in enumerate(x.shape):
        if axis in axes:
            k = ksize[axes.index(axis)]
            shape += [n // k, k]
        else:
            shape.append(n)
    return x.reshape(shape), (axes[0] + 1, axes[1] + 2)


def _window_maximum(x: jax.Array, axes: tuple[int, int], ksize: tuple[int, int]) -> jax.Array:
    if ksize[0] * ksize[1] > _UNROLLED:
        blocks, window_axes = as_blocks(x, axes, ksize)
        return jnp.max(blocks, axis=window_axes)
    step = [1] * x.ndim
    step[axes[0]], step[axes[1]] = ksize
    positions = []
    for offset in itertools.product(range(ksize[0]), range(ksize[1])):
        start = [0] * x.ndim
        start[axes[0]], start[axes[1]] = offset
        positions.append(lax.slice(x, start, x.shape, step))
    return functools.reduce(jnp.maximum, positions)


@functools.partial(jax.custom_vjp, nondiff_argnums=(1, 2))
def block_max(x: jax.Array, axes: tuple[int, int], ksize: tuple[int, int]) -> jax.Array:
    """The maximum of each non-overlapping ``ksize`` window over ``axes`` (their sizes are
    multiples of the window's)."""
    return _window_maximum(x, axes, ksize)


def _block_max_fwd(x, axes, ksize):
    out = _window_maximum(x, axes, ksize)
    return out, (x, out)


def _earlier_hits(hit: jax.Array, window_axes: tuple[int, int]) -> jax.Array:
    """For each window position: whether a position before it (row-major) holds a maximum.

    Built from the positions' slices and concatenations, so that XLA fuses it into the loop
    that writes the gradient (a reduction would be a fusion, and a pass, of its own)."""
    a0, a1 = window_axes
    k0, k1 = hit.shape[a0], hit.shape[a1]
    at = [
        [
            lax.slice_in_dim(lax.slice_in_dim(hit, p, p + 1, axis=a0), q, q + 1, axis=a1)
            for q in range(k1)
        ]
        for p in range(k0)
    ]
    rows, above = [], jnp.zeros_like(at[0][0])
    for p in range(k0):
        row, seen = [], above
        for q in range(k1):
            row.append(seen)
            seen = seen | at[p][q]
        rows.append(lax.concatenate(row, a1))
        above = seen
    return lax.concatenate(rows, a0)


def _block_max_bwd(axes, ksize, res, g):
    # The gradient goes to the window's first maximum (row-major): a maximum with no maximum
    # before it in the window. Written elementwise over the blocks (slices and concatenations
    # of the size-k axes), so that XLA makes it one loop, fused with what surrounds it (the
    # ReLU before the pooling, its gradient after); a reduction to the first maximum's index
    # would be a pass over the input of its own.
    x, out = res
    blocks, window_axes = as_blocks(x, axes, ksize)
    hit = blocks == jnp.expand_dims(out, window_axes)
    k0, k1 = ksize
    if k0 * k1 > _UNROLLED:
        pos_shape = [1] * blocks.ndim
        pos_shape[window_axes[0]], pos_shape[window_axes[1]] = k0, k1
        position = jnp.arange(k0 * k1, dtype=jnp.int32).reshape(pos_shape)
        first = jnp.min(jnp.where(hit, position, k0 * k1), axis=window_axes, keepdims=True)
        chosen = position == first
    else:
        chosen = hit & ~_earlier_hits(hit, window_axes)
    grad = jnp.where(chosen, jnp.expand_dims(g, window_axes), 0)
    return (grad.astype(x.dtype).reshape(x.shape),)


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
