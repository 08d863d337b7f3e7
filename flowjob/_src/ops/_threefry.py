"""JAX's threefry hash with its rounds written out, and dropout's keep masks drawn with it.

JAX lowers its threefry hash (``threefry2x32_p``) for the CPU as a rolled loop (five
iterations of four rounds, to keep compile times short). XLA cannot fuse across that loop, so
each draw makes several passes over memory: on the DCGAN bench's discriminator, four dropout
masks took about 13 ns per element, about 16% of the step's thread time. :func:`threefry2x32`
is the same hash (JAX's rotations and key schedule) as plain elementwise operations, which XLA
fuses into one loop with whatever uses the bits; it even compiles faster than the loop (the
initializers' sampling program: 0.10-0.12 s against 0.18 s, ``_sampling``).

:func:`bernoulli` compares the hashed counters JAX uses with the threshold ``uniform < p``
stands for, so it gives exactly the values ``jax.random.bernoulli(key, p, shape)`` gives, and
seeded dropouts draw the masks they drew before. It serves only the keys and settings it
reproduces: a threefry key, partitionable bits (JAX's default), a float32 or float64
probability. Everything else falls back to ``jax.random.bernoulli``.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

__all__ = ["bernoulli", "threefry2x32"]

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA  # the key schedule's third word: k0 ^ k1 ^ this


def bernoulli(key, p: float, shape: tuple[int, ...]) -> jax.Array:
    """``jax.random.bernoulli(key, p, shape)`` for a Python float ``p``: True with probability
    ``p``, the same values bit for bit.

    >>> import jax, numpy as np
    >>> key = jax.random.key(3)
    >>> mask = bernoulli(key, 0.7, (4, 5))
    >>> bool(np.array_equal(mask, jax.random.bernoulli(key, 0.7, (4, 5))))
    True
    """
    words = _threefry_words(key)
    dtype = jnp.asarray(p).dtype  # as jax.random.bernoulli types a Python float
    size = math.prod(shape)
    if words is None or dtype not in (np.float32, np.float64) or size >= 2**32:
        return jax.random.bernoulli(key, p, shape)
    # uniform() puts the top `mantissa` bits under an exponent of 1: u = m * 2**-mantissa,
    # exactly, and u < p exactly when m < ceil(p * 2**mantissa).
    mantissa = 23 if dtype == np.float32 else 52
    p = float(np.asarray(p, dtype))
    if not p > 0.0 or p >= 1.0:  # every m is >= 0 and < 2**mantissa
        return jnp.full(shape, p >= 1.0)
    threshold = math.ceil(p * 2**mantissa)
    counts = lax.iota(np.uint32, size).reshape(shape)  # the flat index; its high word is 0
    hi, lo = threefry2x32(words[0], words[1], jnp.zeros_like(counts), counts)
    if mantissa == 23:
        return lax.shift_right_logical(hi ^ lo, np.uint32(9)) < np.uint32(threshold)
    # 64 bits: m = hi << 20 | lo >> 12 (52 bits), compared as two words
    t_hi, t_lo = np.uint32(threshold >> 20), np.uint32(threshold & (2**20 - 1))
    lo_part = lax.shift_right_logical(lo, np.uint32(12))
    return (hi < t_hi) | ((hi == t_hi) & (lo_part < t_lo))


def _threefry_words(key):
    """The two uint32 words of a default-implementation threefry key whose bits JAX draws
    partitionably (``bernoulli``'s counters), else None."""
    if not jax.config.jax_threefry_partitionable:
        return None
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        if str(jax.random.key_impl(key)) != "threefry2x32" or key.shape != ():
            return None
        data = jax.random.key_data(key)
    else:  # a raw key: the default implementation's
        if jax.config.jax_default_prng_impl != "threefry2x32" or key.shape != (2,):
            return None
        data = key
    if data.dtype != np.uint32:
        return None
    return data[0], data[1]


def _rotate_left(x, d: int):
    return lax.bitwise_or(
        lax.shift_left(x, np.uint32(d)), lax.shift_right_logical(x, np.uint32(32 - d))
    )


def threefry2x32(k0, k1, x0, x1):
    """Threefry-2x32 with 20 rounds of the uint32 counter pair ``(x0, x1)`` under the key
    ``(k0, k1)``: the values of JAX's ``threefry2x32_p``, its rounds written out.

    >>> from jax.extend.random import threefry2x32_p
    >>> k, x = np.uint32(7), np.arange(4, dtype=np.uint32)
    >>> ours = threefry2x32(k, k + 1, x, x + 9)
    >>> theirs = threefry2x32_p.bind(k, k + 1, x, x + 9)
    >>> all(bool((a == b).all()) for a, b in zip(ours, theirs))
    True
    """
    # lax's operations, not the operators: jax.numpy's promotion and broadcasting cost ~0.3 ms
    # of tracing per operation, ~30 ms of a first call (the sampling program, bench/NOTES.md)
    add, xor = lax.add, lax.bitwise_xor
    ks = (k0, k1, xor(xor(k0, k1), np.uint32(_PARITY)))
    x0, x1 = add(x0, ks[0]), add(x1, ks[1])
    for group in range(5):
        for r in _ROTATIONS[group % 2]:
            x0 = add(x0, x1)
            x1 = xor(_rotate_left(x1, r), x0)
        x0 = add(x0, ks[(group + 1) % 3])
        x1 = add(add(x1, ks[(group + 2) % 3]), np.uint32(group + 1))
    return x0, x1
