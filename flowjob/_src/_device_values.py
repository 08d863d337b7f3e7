"""Host values put on the device without compiling a program for them.

``jnp.asarray(numpy_value)`` stages the value through a ``stage`` program compiled per shape
and dtype, and ``jax.random.PRNGKey(seed)`` runs JAX's jitted ``_threefry_seed``: at a job's
first call each costs tracing and an XLA compile (tens of ms, more under load) for what is a
transfer. These helpers give the same arrays by ``jax.device_put``.
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

__all__ = ["prng_key", "staging", "to_device"]


def to_device(value: Any, dtype: Any = None) -> jax.Array:
    """``jnp.asarray(value, dtype)``: a NumPy value (or scalar) is cast on the host to JAX's
    canonical dtype and transferred; a ``jax.Array`` of that dtype is returned as it is.

    >>> to_device(np.zeros((1,), np.int64)).dtype == jax.numpy.asarray(np.zeros(1, np.int64)).dtype
    True
    """
    if isinstance(value, jax.Array):
        if dtype is None or value.dtype == jax.dtypes.canonicalize_dtype(dtype):
            return value
        return jax.numpy.asarray(value, dtype=dtype)
    host = np.asarray(value)
    return jax.device_put(host if dtype is None else host.astype(dtype, copy=False))


def prng_key(seed: int) -> jax.Array:
    """The array ``jax.random.PRNGKey(seed)`` returns.

    With JAX's default key (raw ``uint32[2]`` threefry, no custom PRNG) a seed in
    ``[0, 2**32)`` is the key ``[0, seed]`` in both 32- and 64-bit mode; other seeds and key
    kinds go through JAX.

    >>> bool((np.asarray(prng_key(7)) == np.asarray(jax.random.PRNGKey(7))).all())
    True
    """
    seed = int(seed)
    if (
        0 <= seed < 2**32
        and jax.config.jax_default_prng_impl == "threefry2x32"
        and not jax.config.jax_enable_custom_prng
    ):
        return jax.device_put(np.array([0, seed], np.uint32))
    return jax.random.PRNGKey(seed)


def staging() -> bool:
    """Whether JAX operations on constants called here are recorded into a program being
    traced (``jax.jit``, ``jax.eval_shape``, ``lax.scan``..., through any transformation over
    one) instead of run now (outside any trace, or under ``jax.ensure_compile_time_eval``).

    JAX has no public query for this: ``jax.extend.core`` exports its own check only as
    ``unsafe_am_i_under_a_jit_DO_NOT_USE``, and whether ``ensure_compile_time_eval`` folds
    constants is a private setting. The public way, staging an operation and looking for a
    tracer, costs a transfer to the device at every draw. tests/ops/test_sampling.py compares
    this with that way in each kind of trace, so a change in JAX fails there.
    """
    from jax._src import config  # private: see above

    try:  # where jax.extend.core takes it from: importing that package imports Pallas,
        # ~30 ms of every process's first job trace
        from jax._src.core import unsafe_am_i_under_a_jit as under_a_jit
    except ImportError:  # moved in another JAX version
        from jax.extend.core import unsafe_am_i_under_a_jit_DO_NOT_USE as under_a_jit

    return under_a_jit() and not config.eager_constant_folding.value
