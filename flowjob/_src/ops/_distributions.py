"""The :class:`Initializer` and the plain distributions behind ``flow.constant_initializer``,
``zeros``/``ones``, ``random_uniform``, ``random_normal`` and ``truncated_normal``
initializers; ``initializers`` is the public module (fans, variance scaling, ``from_conf``).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtypes
from .._device_values import prng_key, to_device
from ._sampling import draw

# Standard deviation of a unit normal truncated to [-2, 2]; variance scaling divides by it.
_TRUNC_STD = 0.87962566103423978
_FLOAT_CONF_DTYPES = ("float32", "float64")
_INT_CONF_DTYPES = ("int8", "int32", "int64")


class Initializer:
    """A callable ``init(key, shape, np_dtype) -> jax.Array`` with a JSON-able ``.conf``."""

    def __init__(self, conf: dict, sample: Callable, text: str):
        self._conf = conf
        self._sample = sample
        self._text = text

    @property
    def conf(self) -> dict:
        """OneFlow ``InitializerConf`` as a dict (a copy)."""
        return copy.deepcopy(self._conf)

    def __call__(self, key, shape: Sequence[int], np_dtype=np.float32) -> jax.Array:
        shape = tuple(int(d) for d in shape)
        if any(d < 0 for d in shape):
            raise ValueError(f"{self._text}: shape must be non-negative, got {shape}")
        dtype = _dtypes.as_dtype(np_dtype).np_dtype
        value = self._sample(key, shape, dtype)
        if isinstance(value, np.ndarray):  # drawn or filled on the host: a transfer only
            # (jnp.asarray would stage it through a program compiled per shape)
            return to_device(value, dtype)
        return jnp.asarray(value).astype(dtype)

    def __eq__(self, other) -> bool:
        return isinstance(other, Initializer) and self._conf == other._conf

    def __hash__(self) -> int:
        return hash(json.dumps(self._conf, sort_keys=True))

    def __repr__(self) -> str:
        return self._text


def _sample_dtype(np_dtype) -> np.dtype:
    # Draw half-precision values in float32 for quality; float64 stays float64.
    return np.dtype(np.float64) if np.dtype(np_dtype) == np.float64 else np.dtype(np.float32)


def _float_conf(dtype, who: str) -> bool:
    """Whether ``dtype`` takes OneFlow's float conf (else its ``*_int_conf``)."""
    name = _dtypes.as_dtype(dtype).name
    if name in _FLOAT_CONF_DTYPES:
        return True
    if name in _INT_CONF_DTYPES:
        return False
    raise TypeError(
        f"{who}: dtype {name} is not supported; use a float32/float64 or int8/int32/int64 dtype"
    )


def _normal(mean: float, std: float) -> Callable:
    def sample(key, shape, dtype):
        sdt = _sample_dtype(dtype)
        return mean + std * draw("normal", key, shape, sdt)

    return sample


def truncated_sampler(mean: float, std: float) -> Callable:
    # Normal restricted to |x - mean| < 2 std: the distribution OneFlow obtains by redrawing
    # every value outside that band (inverse-CDF sampling, no loop).
    def sample(key, shape, dtype):
        sdt = _sample_dtype(dtype)
        return mean + std * draw("truncated_normal", key, shape, sdt)

    return sample


def _uniform(low: float, high: float) -> Callable:
    def sample(key, shape, dtype):
        sdt = _sample_dtype(dtype)
        return draw("uniform", key, shape, sdt, low, high)

    return sample


def constant_initializer(value: float = 0, dtype=_dtypes.float32) -> Initializer:
    """Fills with ``value`` (``constant_conf``, or ``constant_int_conf`` for int dtypes)."""
    if _float_conf(dtype, "constant_initializer"):
        conf = {"constant_conf": {"value": float(value)}}
    else:
        conf = {"constant_int_conf": {"value": int(value)}}
    value = next(iter(conf.values()))["value"]
    return Initializer(
        conf,
        lambda key, shape, dt: np.full(shape, value, dt),
        f"constant_initializer(value={value!r})",
    )


def zeros_initializer(dtype=_dtypes.float32) -> Initializer:
    """``constant_initializer(0, dtype)``."""
    return constant_initializer(0.0, dtype)


def ones_initializer(dtype=_dtypes.float32) -> Initializer:
    """``constant_initializer(1, dtype)``."""
    return constant_initializer(1.0, dtype)


def random_uniform_initializer(
    minval: float = 0, maxval: float = 1, dtype=_dtypes.float32
) -> Initializer:
    """Uniform on ``[minval, maxval)``; for int dtypes integers in ``[minval, maxval)``."""
    if minval > maxval:
        raise ValueError(
            f"random_uniform_initializer: minval ({minval}) must be <= maxval ({maxval})"
        )
    text = f"random_uniform_initializer(minval={minval!r}, maxval={maxval!r})"
    if _float_conf(dtype, "random_uniform_initializer"):
        low, high = float(minval), float(maxval)
        return Initializer(
            {"random_uniform_conf": {"min": low, "max": high}}, _uniform(low, high), text
        )
    low, high = int(minval), int(maxval)

    def sample(key, shape, dt):
        idt = np.int64 if np.dtype(dt).itemsize >= 8 else np.int32
        return jax.random.randint(key, shape, low, max(high, low + 1), idt)

    return Initializer({"random_uniform_int_conf": {"min": low, "max": high}}, sample, text)


def random_normal_initializer(
    mean: float = 0.0, stddev: float = 1.0, seed: int | None = None, dtype=None
) -> Initializer:
    """Normal with ``mean`` and ``stddev``.

    ``seed`` (OneFlow rejected it) makes the draw independent of the key it is called with.
    """
    if stddev < 0:
        raise ValueError(f"random_normal_initializer: stddev must be >= 0, got {stddev}")
    if dtype is not None:
        _float_conf(dtype, "random_normal_initializer")  # checks the dtype
    mean, stddev = float(mean), float(stddev)
    sample = _normal(mean, stddev)
    if seed is not None:
        fixed = prng_key(int(seed))
        inner = sample

        def sample(key, shape, dt):
            return inner(fixed, shape, dt)

    return Initializer(
        {"random_normal_conf": {"mean": mean, "std": stddev}},
        sample,
        f"random_normal_initializer(mean={mean!r}, stddev={stddev!r})",
    )


def truncated_normal_initializer(mean: float = 0.0, stddev: float = 1.0) -> Initializer:
    """Normal with ``mean``/``stddev`` truncated to ``|x - mean| < 2 * stddev``.

    Values outside the band are redrawn (in distribution); the result's standard deviation is
    about ``0.88 * stddev``.
    """
    if stddev < 0:
        raise ValueError(f"truncated_normal_initializer: stddev must be >= 0, got {stddev}")
    mean, stddev = float(mean), float(stddev)
    return Initializer(
        {"truncated_normal_conf": {"mean": mean, "std": stddev}},
        truncated_sampler(mean, stddev),
        f"truncated_normal_initializer(mean={mean!r}, stddev={stddev!r})",
    )
