"""Random initial values from one compiled program per distribution, not one per shape.

``jax.random.normal(key, shape)`` and its kin compile a program for every shape they are
called with, and a model's variables come in many shapes: before this module, variable
initializers were most of a small model's first call (LeNet: 2.4 s of 4.1 s, four
``_truncated_normal`` programs) and minutes under load for larger ones. Threefry's bits are a
function of the key and of each element's position (JAX's default, partitionable threefry),
so any slice of a draw can be computed on its own: :func:`draw` runs one compiled program per
distribution and dtype that makes :data:`CHUNK` values from a key and a starting position,
and joins the chunks on the host. The values are the ones ``jax.random`` gives for the same
key and shape (tests compare them bit for bit), whatever ``jax_threefry_partitionable`` says:
every draw goes through the same key implementation, chunked or not.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .._device_values import staging
from ._threefry import threefry2x32

__all__ = ["CHUNK", "draw"]

CHUNK = 1 << 16  # values per call of a chunk program
_KINDS = ("normal", "truncated_normal", "uniform")


@functools.cache
def _offset_threefry() -> Any:
    """Threefry-2x32 whose key carries a third word: the position of the first value.

    Registered with JAX on first use, so that ``import flowjob`` changes nothing in JAX."""
    from jax import lax

    try:  # where jax.extend.random takes it from, without jax.extend's import of Pallas
        from jax._src.extend.random import define_prng_impl
    except ImportError:  # moved in another JAX version
        from jax.extend.random import define_prng_impl

    def random_bits(key, bit_width, shape):
        size = math.prod(shape)
        low = key[2] + lax.iota(np.uint32, size)  # positions stay below 2**32 (see draw)
        # JAX's threefry2x32_p, its rounds written out: the same bits, and a program that
        # compiles faster than the rolled loop JAX's CPU lowering makes (_threefry)
        bits1, bits2 = threefry2x32(key[0], key[1], jnp.zeros_like(low), low)
        if bit_width == 64:
            wide = np.uint64
            out = lax.convert_element_type(bits1, wide) << wide(32)
            out = out | lax.convert_element_type(bits2, wide)
        else:
            out = bits1 ^ bits2
            if bit_width != 32:
                out = lax.convert_element_type(out, np.dtype(f"uint{bit_width}"))
        return out.reshape(shape)

    def unsupported(*_: Any) -> Any:
        raise NotImplementedError("flowjob's initializer keys only draw values")

    return define_prng_impl(
        key_shape=(3,),
        seed=unsupported,
        split=unsupported,
        random_bits=random_bits,
        fold_in=unsupported,
        name="flowjob_positioned_threefry",
    )


def _positioned(words: Any) -> Any:
    """A key of :func:`_offset_threefry` from its three words."""
    return jax.random.wrap_key_data(words, impl=_offset_threefry())


def _random(kind: str, key: Any, shape: tuple[int, ...], dtype: Any, low: Any, high: Any):
    if kind == "normal":
        return jax.random.normal(key, shape, dtype)
    if kind == "truncated_normal":  # the unit normal within two standard deviations
        return jax.random.truncated_normal(key, -2.0, 2.0, shape, dtype)
    return jax.random.uniform(key, shape, dtype, minval=low, maxval=high)


@functools.cache
def _chunk_program(kind: str, dtype: np.dtype) -> Any:
    return jax.jit(
        lambda words, low, high: _random(kind, _positioned(words), (CHUNK,), dtype, low, high)
    )


def _threefry_words(key: Any) -> Any:
    """The two uint32 words of a threefry key (raw ``uint32[2]`` or typed), else None."""
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        if jax.random.key_impl(key) != jax.random.key_impl(jax.random.key(0)):
            return None
        key = jax.random.key_data(key)
    if key.shape != (2,) or key.dtype != np.uint32:
        return None
    return key


def draw(
    kind: str, key: Any, shape: tuple[int, ...], dtype: Any, low: float = 0.0, high: float = 1.0
) -> np.ndarray | jax.Array:
    """``jax.random.normal(key, shape, dtype)``, ``truncated_normal(key, -2, 2, ...)`` or
    ``uniform(..., minval=low, maxval=high)`` (``kind``), the same values: a NumPy array
    made in chunks when ``key`` is a concrete threefry key outside any trace, else (a traced
    key, or a program being traced: the values belong to it) a traced draw.

    >>> a = draw("normal", jax.random.PRNGKey(0), (3, 4), np.float32)
    >>> b = np.asarray(jax.random.normal(jax.random.PRNGKey(0), (3, 4), np.float32))
    >>> bool((a == b).all())
    True
    """
    if kind not in _KINDS:
        raise ValueError(f"kind must be one of {_KINDS}, got {kind!r}")
    words = _threefry_words(key)
    if words is None:  # another key implementation: its own draw
        return _random(kind, key, shape, dtype, low, high)
    size = math.prod(shape)
    if isinstance(words, jax.core.Tracer):
        three = jnp.concatenate([words, jnp.zeros((1,), np.uint32)])
    else:  # host words: no eager program compiled, no transfer made here
        words = np.asarray(words)
        three = np.append(words, np.uint32(0))
    if isinstance(three, jax.core.Tracer) or staging() or size > 2**32 - CHUNK:
        return _random(kind, _positioned(three), shape, dtype, low, high)
    out_dtype = jax.dtypes.canonicalize_dtype(dtype)
    program = _chunk_program(kind, np.dtype(dtype))
    bounds = np.asarray(low, out_dtype), np.asarray(high, out_dtype)
    chunks = [
        np.asarray(program(np.array([words[0], words[1], start], np.uint32), *bounds))
        for start in range(0, size, CHUNK)
    ]
    flat = np.concatenate(chunks)[:size] if chunks else np.zeros((0,), out_dtype)
    return flat.reshape(shape)
