"""OneFlow's elementwise binary math ops on two blobs: ``atan2``, ``floordiv``, ``xdivy``,
``xlogy`` (automatic names ``<op>_<n>``, as OneFlow).

OneFlow requires equal shapes; flowjob also broadcasts. Gradients follow OneFlow's kernels:
``floordiv`` has none (zero), and ``xdivy``/``xlogy`` give 0 for both operands where
``x == 0`` (no NaN from ``y == 0`` there).
"""

from __future__ import annotations

import functools

import jax.numpy as jnp

from ..graph import Blob, apply_op
from ._util import broadcast_shape, check_name, fail, require_blob


def _lower(x, y, *, fn):
    return fn(x, y)


def _binary(kind: str, fn, x: Blob, y: Blob, name: str | None) -> Blob:
    public = f"flow.math.{kind}"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    require_blob(public, y, "y", name)
    if x.dtype != y.dtype or not x.dtype.is_floating:
        fail(public, f"x and y must have one floating point dtype, got {x.dtype.name} and "
                     f"{y.dtype.name}", name)
    out = broadcast_shape(public, [x.shape, y.shape], name)
    return apply_op(kind, functools.partial(_lower, fn=fn), [x, y], name=name, prefix=kind,
                    elementwise=all(b.shape == out for b in (x, y) if b.is_dynamic))


def atan2(x: Blob, y: Blob, name: str | None = None) -> Blob:
    """``arctan(x / y)`` in the quadrant of the point ``(y, x)`` (as ``np.arctan2(x, y)``)."""
    return _binary("atan2", jnp.arctan2, x, y, name)


def _floordiv(x, y):
    return jnp.floor(x / y)


def floordiv(x: Blob, y: Blob, name: str | None = None) -> Blob:
    """``floor(x / y)``; zero gradient."""
    return _binary("floordiv", _floordiv, x, y, name)


def _safe_y(x, y):
    return jnp.where(x == 0, jnp.ones((), y.dtype), y)


def _xdivy(x, y):
    zero = jnp.zeros((), jnp.result_type(x, y))
    return jnp.where(x == 0, zero, x / _safe_y(x, y))


def xdivy(x: Blob, y: Blob, name: str | None = None) -> Blob:
    """``x / y``, but 0 where ``x`` is 0."""
    return _binary("xdivy", _xdivy, x, y, name)


def _xlogy(x, y):
    zero = jnp.zeros((), jnp.result_type(x, y))
    return jnp.where(x == 0, zero, x * jnp.log(_safe_y(x, y)))


def xlogy(x: Blob, y: Blob, name: str | None = None) -> Blob:
    """``x * log(y)``, but 0 where ``x`` is 0."""
    return _binary("xlogy", _xlogy, x, y, name)
