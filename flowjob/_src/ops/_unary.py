"""Elementwise unary math: exp/log, roots, rounding, trigonometric, hyperbolic, error and
gamma functions, ``clip_by_value``.

Automatic names are OneFlow's (``<op>_<n>``, e.g. ``acos_0``). Gradients are the exact
derivatives; OneFlow v0.4's kernels differ in two places, where flowjob does better:
``lgamma`` has a gradient (digamma; OneFlow's asserts), and ``acosh``'s float64 gradient has
the right sign.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from ..graph import Blob, apply_op
from ._util import check_name, fail, require_blob


def _lower(x, *, fn):
    return fn(x)


def unary(
    public: str,
    op_type: str,
    prefix: str,
    fn: Callable[[Any], Any],
    x: Blob,
    name: str | None,
    floating: bool = False,
) -> Blob:
    """Records the elementwise op ``fn`` on ``x``; ``floating`` rejects integer inputs."""
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if floating and not x.dtype.is_floating:
        fail(
            public,
            f"needs a floating point input, got {x.dtype.name} ({x.lbn}); use flow.cast first",
            name,
        )
    return apply_op(
        op_type, functools.partial(_lower, fn=fn), [x], name=name, prefix=prefix, elementwise=True
    )


def exp(x: Blob, name: str | None = None) -> Blob:
    """``e ** x``."""
    return unary("flow.math.exp", "exp", "Exp", jnp.exp, x, name, True)


def log(x: Blob, name: str | None = None) -> Blob:
    """Natural logarithm."""
    return unary("flow.math.log", "log", "Log", jnp.log, x, name, True)


def log1p(x: Blob, name: str | None = None) -> Blob:
    """``log(1 + x)``."""
    return unary("flow.math.log1p", "log1p", "Log1p", jnp.log1p, x, name, True)


def sqrt(x: Blob, name: str | None = None) -> Blob:
    """Square root."""
    return unary("flow.math.sqrt", "sqrt", "Sqrt", jnp.sqrt, x, name, True)


def rsqrt(x: Blob, name: str | None = None) -> Blob:
    """``1 / sqrt(x)``."""
    return unary("flow.math.rsqrt", "rsqrt", "Rsqrt", jax.lax.rsqrt, x, name, True)


def reciprocal(x: Blob, name: str | None = None) -> Blob:
    """``1 / x``."""
    return unary("flow.math.reciprocal", "reciprocal", "Reciprocal", jnp.reciprocal, x, name, True)


def square(x: Blob, name: str | None = None) -> Blob:
    """``x * x``."""
    return unary("flow.math.square", "square", "Square", jnp.square, x, name)


def abs(x: Blob, name: str | None = None) -> Blob:  # noqa: A001 - OneFlow's name
    """Absolute value."""
    return unary("flow.math.abs", "abs", "Abs", jnp.abs, x, name)


def negative(x: Blob, name: str | None = None) -> Blob:
    """``-x``."""
    return unary("flow.math.negative", "negative", "Negative", jnp.negative, x, name)


def sign(x: Blob, name: str | None = None) -> Blob:
    """-1, 0 or 1 by the sign of ``x``."""
    return unary("flow.math.sign", "sign", "Sign", jnp.sign, x, name)


def floor(x: Blob, name: str | None = None) -> Blob:
    """Largest integer value not greater than ``x``."""
    return unary("flow.math.floor", "floor", "Floor", jnp.floor, x, name, True)


def ceil(x: Blob, name: str | None = None) -> Blob:
    """Smallest integer value not less than ``x``."""
    return unary("flow.math.ceil", "ceil", "Ceil", jnp.ceil, x, name, True)


def round(x: Blob, name: str | None = None) -> Blob:  # noqa: A001 - OneFlow's name
    """Nearest integer value, halves to even (like ``np.round``)."""
    return unary("flow.math.round", "round", "Round", jnp.round, x, name, True)


def sin(x: Blob, name: str | None = None) -> Blob:
    """Sine."""
    return unary("flow.math.sin", "sin", "Sin", jnp.sin, x, name, True)


def cos(x: Blob, name: str | None = None) -> Blob:
    """Cosine."""
    return unary("flow.math.cos", "cos", "Cos", jnp.cos, x, name, True)


def _lower_clip(x, *, lo, hi):
    # bounds take x's dtype (OneFlow clips integers with integral bounds)
    lo = None if lo is None else jnp.asarray(lo).astype(x.dtype)
    hi = None if hi is None else jnp.asarray(hi).astype(x.dtype)
    return jnp.clip(x, lo, hi)


def clip_by_value(
    values: Blob,
    min_value: float | None = None,
    max_value: float | None = None,
    name: str | None = None,
) -> Blob:
    """Clips ``values`` to ``[min_value, max_value]``; either bound may be None."""
    public = "flow.math.clip_by_value"
    name = check_name(public, name)
    require_blob(public, values, "values", name)
    if min_value is None and max_value is None:
        fail(public, "min_value and max_value cannot be None at the same time", name)
    if min_value is not None and max_value is not None and min_value > max_value:
        fail(public, f"min_value {min_value} is greater than max_value {max_value}", name)
    return apply_op(
        "clip_by_scalar",
        _lower_clip,
        [values],
        attrs={"lo": min_value, "hi": max_value},
        name=name,
        prefix="ClipByValue",
        elementwise=True,
    )


def math_unary(kind: str, fn, x: Blob, name: str | None) -> Blob:
    """A float-only ``flow.math.<kind>`` op (op type and automatic name prefix ``kind``)."""
    return unary(f"flow.math.{kind}", kind, kind, fn, x, name, floating=True)


def acos(x: Blob, name: str | None = None) -> Blob:
    """Inverse cosine, in ``[0, pi]``."""
    return math_unary("acos", jnp.arccos, x, name)


def acosh(x: Blob, name: str | None = None) -> Blob:
    """Inverse hyperbolic cosine (``x >= 1``)."""
    return math_unary("acosh", jnp.arccosh, x, name)


def asin(x: Blob, name: str | None = None) -> Blob:
    """Inverse sine, in ``[-pi/2, pi/2]``."""
    return math_unary("asin", jnp.arcsin, x, name)


def asinh(x: Blob, name: str | None = None) -> Blob:
    """Inverse hyperbolic sine."""
    return math_unary("asinh", jnp.arcsinh, x, name)


def atan(x: Blob, name: str | None = None) -> Blob:
    """Inverse tangent, in ``(-pi/2, pi/2)``."""
    return math_unary("atan", jnp.arctan, x, name)


def atanh(x: Blob, name: str | None = None) -> Blob:
    """Inverse hyperbolic tangent (``|x| < 1``)."""
    return math_unary("atanh", jnp.arctanh, x, name)


def cosh(x: Blob, name: str | None = None) -> Blob:
    """Hyperbolic cosine."""
    return math_unary("cosh", jnp.cosh, x, name)


def sinh(x: Blob, name: str | None = None) -> Blob:
    """Hyperbolic sine."""
    return math_unary("sinh", jnp.sinh, x, name)


def tan(x: Blob, name: str | None = None) -> Blob:
    """Tangent."""
    return math_unary("tan", jnp.tan, x, name)


def erf(x: Blob, name: str | None = None) -> Blob:
    """Gauss error function."""
    return math_unary("erf", lax.erf, x, name)


def erfc(x: Blob, name: str | None = None) -> Blob:
    """Complementary error function ``1 - erf(x)``, accurate for large ``x``."""
    return math_unary("erfc", lax.erfc, x, name)


def expm1(x: Blob, name: str | None = None) -> Blob:
    """``exp(x) - 1``, accurate near 0."""
    return math_unary("expm1", jnp.expm1, x, name)


def _lgamma(x):
    # XLA's float32 lgamma is off by ~5e-7 around its zeros (x = 1, 2); float64 is closer,
    # and exact there on the CPU but not on a GPU (8.9e-16 at 2): the zeros are pinned,
    # keeping the gradient (digamma) there.
    wide = x.astype(jnp.promote_types(x.dtype, jnp.float64))
    y = lax.lgamma(wide)
    at_zero = (wide == 1) | (wide == 2)
    return (y - lax.stop_gradient(jnp.where(at_zero, y, 0))).astype(x.dtype)


def lgamma(x: Blob, name: str | None = None) -> Blob:
    """``log(|gamma(x)|)`` (computed in float64); its gradient is the digamma function."""
    return math_unary("lgamma", _lgamma, x, name)


def rint(x: Blob, name: str | None = None) -> Blob:
    """Nearest integer value, halves to even; zero gradient."""
    return math_unary("rint", jnp.rint, x, name)


def _reciprocal_no_nan(x):
    zero = x == 0
    return jnp.where(zero, jnp.zeros((), x.dtype), 1 / jnp.where(zero, jnp.ones((), x.dtype), x))


def reciprocal_no_nan(x: Blob, name: str | None = None) -> Blob:
    """``1 / x``, but 0 (with gradient 0) where ``x`` is 0."""
    return math_unary("reciprocal_no_nan", _reciprocal_no_nan, x, name)
