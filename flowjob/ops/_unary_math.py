"""The rest of OneFlow's elementwise unary math: inverse trigonometric and hyperbolic
functions, error/gamma functions, ``expm1``, ``log_sigmoid``, ``rint``, ``reciprocal_no_nan``.

Automatic names are OneFlow's (``<op>_<n>``, e.g. ``acos_0``). Gradients are the exact
derivatives; OneFlow v0.4's kernels differ in two places, where flowjob does better:
``lgamma`` has a gradient (digamma; OneFlow's asserts), and ``acosh``'s float64 gradient has
the right sign.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

from ..graph import Blob
from ._unary import tanh, unary


def _op(kind: str, fn, x: Blob, name: str | None) -> Blob:
    return unary(f"flow.math.{kind}", kind, kind, fn, x, name, floating=True)


def acos(x: Blob, name: str | None = None) -> Blob:
    """Inverse cosine, in ``[0, pi]``."""
    return _op("acos", jnp.arccos, x, name)


def acosh(x: Blob, name: str | None = None) -> Blob:
    """Inverse hyperbolic cosine (``x >= 1``)."""
    return _op("acosh", jnp.arccosh, x, name)


def asin(x: Blob, name: str | None = None) -> Blob:
    """Inverse sine, in ``[-pi/2, pi/2]``."""
    return _op("asin", jnp.arcsin, x, name)


def asinh(x: Blob, name: str | None = None) -> Blob:
    """Inverse hyperbolic sine."""
    return _op("asinh", jnp.arcsinh, x, name)


def atan(x: Blob, name: str | None = None) -> Blob:
    """Inverse tangent, in ``(-pi/2, pi/2)``."""
    return _op("atan", jnp.arctan, x, name)


def atanh(x: Blob, name: str | None = None) -> Blob:
    """Inverse hyperbolic tangent (``|x| < 1``)."""
    return _op("atanh", jnp.arctanh, x, name)


def cosh(x: Blob, name: str | None = None) -> Blob:
    """Hyperbolic cosine."""
    return _op("cosh", jnp.cosh, x, name)


def sinh(x: Blob, name: str | None = None) -> Blob:
    """Hyperbolic sine."""
    return _op("sinh", jnp.sinh, x, name)


def tan(x: Blob, name: str | None = None) -> Blob:
    """Tangent."""
    return _op("tan", jnp.tan, x, name)


def erf(x: Blob, name: str | None = None) -> Blob:
    """Gauss error function."""
    return _op("erf", lax.erf, x, name)


def erfc(x: Blob, name: str | None = None) -> Blob:
    """Complementary error function ``1 - erf(x)``, accurate for large ``x``."""
    return _op("erfc", lax.erfc, x, name)


def expm1(x: Blob, name: str | None = None) -> Blob:
    """``exp(x) - 1``, accurate near 0."""
    return _op("expm1", jnp.expm1, x, name)


def _lgamma(x):
    # XLA's float32 lgamma is off by ~5e-7 around its zeros (x = 1, 2); float64 is exact
    wide = jnp.promote_types(x.dtype, jnp.float64)
    return lax.lgamma(x.astype(wide)).astype(x.dtype)


def lgamma(x: Blob, name: str | None = None) -> Blob:
    """``log(|gamma(x)|)`` (computed in float64); its gradient is the digamma function."""
    return _op("lgamma", _lgamma, x, name)


def log_sigmoid(x: Blob, name: str | None = None) -> Blob:
    """``log(1 / (1 + exp(-x)))``, stable for large ``|x|``."""
    return _op("log_sigmoid", jax.nn.log_sigmoid, x, name)


def rint(x: Blob, name: str | None = None) -> Blob:
    """Nearest integer value, halves to even; zero gradient."""
    return _op("rint", jnp.rint, x, name)


def _reciprocal_no_nan(x):
    zero = x == 0
    return jnp.where(zero, jnp.zeros((), x.dtype), 1 / jnp.where(zero, jnp.ones((), x.dtype), x))


def reciprocal_no_nan(x: Blob, name: str | None = None) -> Blob:
    """``1 / x``, but 0 (with gradient 0) where ``x`` is 0."""
    return _op("reciprocal_no_nan", _reciprocal_no_nan, x, name)


def sigmoid_v2(x: Blob, name: str | None = None) -> Blob:
    """``1 / (1 + exp(-x))`` (OneFlow's second sigmoid kernel; same values)."""
    return _op("sigmoid_v2", jax.nn.sigmoid, x, name)


def tanh_v2(x: Blob, name: str | None = None) -> Blob:
    """Hyperbolic tangent (OneFlow: an alias of ``flow.math.tanh``)."""
    return tanh(x, name)
