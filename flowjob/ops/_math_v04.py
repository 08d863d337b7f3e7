"""OneFlow v0.4 math ops beyond the core set: ``flow.math.polyval``,
``flow.math.l2_normalize``, ``flow.count_not_finite``, ``flow.multi_count_not_finite``."""

from __future__ import annotations

from collections.abc import Sequence

import jax.numpy as jnp

from ..graph import Blob, apply_op
from ._util import check_name, fail, norm_axis, require_blob


def _lower_polyval(x, *, coeffs):
    out = jnp.zeros_like(x)
    for c in coeffs:  # Horner's rule, highest power first
        out = out * x + jnp.asarray(c, x.dtype)
    return out


def polyval(coeffs: Sequence[float], x: Blob, name: str | None = None) -> Blob:
    """``coeffs[0] * x**(n-1) + ... + coeffs[n-1]``, elementwise; no coefficients give zeros."""
    public = "flow.math.polyval"
    check_name(public, name)
    if not isinstance(coeffs, (list, tuple)):
        fail(public, f"coeffs must be a list or tuple, got {type(coeffs).__name__}", name)
    require_blob(public, x, "x", name)
    return apply_op("polyval", _lower_polyval, [x], attrs={"coeffs": tuple(coeffs)},
                    name=name, prefix="Polyval", elementwise=True)


def _lower_l2_normalize(x, *, axis, epsilon):
    square_sum = jnp.sum(x * x, axis=axis, keepdims=True)
    return x / jnp.sqrt(jnp.maximum(square_sum, epsilon))


def l2_normalize(input: Blob, axis: int | None = None, epsilon: float = 1e-12,  # noqa: A002
                 name: str | None = None) -> Blob:
    """``x / sqrt(max(sum(x**2, axis), epsilon))``, as OneFlow's kernel."""
    public = "flow.math.l2_normalize"
    check_name(public, name)
    require_blob(public, input, "input", name)
    if axis is None:
        fail(public, "axis must be an int (OneFlow v0.4 normalizes along one axis)", name)
    return apply_op("l2_normalize", _lower_l2_normalize, [input],
                    attrs={"axis": norm_axis(public, axis, input.ndim, name),
                           "epsilon": float(epsilon)}, name=name, prefix="L2Normalize")


def _lower_count_not_finite(x):
    return jnp.sum(~jnp.isfinite(x), dtype=jnp.int64).reshape((1,))


def count_not_finite(x: Blob, name: str | None = None) -> Blob:
    """How many elements are inf or nan, as an int64 blob of shape ``(1,)``."""
    public = "flow.count_not_finite"
    check_name(public, name)
    require_blob(public, x, "x", name)
    return apply_op("count_not_finite", _lower_count_not_finite, [x], name=name,
                    prefix="CountNotFinite")


def _lower_multi_count_not_finite(*xs):
    return sum(jnp.sum(~jnp.isfinite(x), dtype=jnp.int64) for x in xs).reshape((1,))


def multi_count_not_finite(x: Sequence[Blob], name: str | None = None) -> Blob:
    """How many elements of all blobs in ``x`` are inf or nan (int64, shape ``(1,)``)."""
    public = "flow.multi_count_not_finite"
    check_name(public, name)
    if not isinstance(x, (list, tuple)) or not x:
        fail(public, f"x must be a non-empty list of blobs, got {x!r}", name)
    blobs = [require_blob(public, b, f"x[{i}]", name) for i, b in enumerate(x)]
    return apply_op("multi_count_not_finite", _lower_multi_count_not_finite, blobs, name=name,
                    prefix="MultiCountNotFinite")
