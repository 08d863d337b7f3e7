"""Blobs made from values, and identities: ``flow.constant`` and friends, ``*_like``,
``cast``, ``range``, ``identity``/``identity_n``/``amp_white_identity`` and
``with_distribute``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from .. import _dtypes
from ..graph import Blob, Distribute, RealShape, apply_op
from ._util import check_name, dtype_arg, fail, norm_axis, require_blob, shape_tuple


def _lower_constant(*, value, shape, dtype):
    return jnp.full(shape, value, dtype=dtype)


def constant(
    value: float, dtype: Any = None, shape: Sequence[int] | None = None, name: str | None = None
) -> Blob:
    """A blob of ``shape`` filled with ``value`` (default dtype float32). No shape (or ``()``)
    gives shape ``(1,)``, as OneFlow (which has no 0-d blobs)."""
    public = "flow.constant"
    name = check_name(public, name)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        fail(public, f"value must be an int or float, got {type(value).__name__}: {value!r}", name)
    dt = _dtypes.float32 if dtype is None else dtype_arg(public, dtype, name)
    dims = () if shape is None else shape_tuple(public, shape, name=name)
    return apply_op(
        "constant",
        _lower_constant,
        [],
        attrs={"value": value, "shape": dims or (1,), "dtype": dt.np_dtype},
        name=name,
        prefix="Constant",
    )


def constant_scalar(value: float, dtype: Any = None, name: str | None = None) -> Blob:
    """A ``(1,)`` blob holding ``value``."""
    return constant(value, dtype, (1,), name)


def zeros(shape: Sequence[int], dtype: Any = None, name: str | None = None) -> Blob:
    """A blob of zeros (default dtype float32)."""
    return constant(0.0, dtype, shape, name)


def ones(shape: Sequence[int], dtype: Any = None, name: str | None = None) -> Blob:
    """A blob of ones (default dtype float32)."""
    return constant(1.0, dtype, shape, name)


def _lower_full_like(x, *, value, dtype):
    return jnp.full(x.shape, value, dtype=dtype or x.dtype)


def constant_like(like: Blob, value: float, dtype: Any = None, name: str | None = None) -> Blob:
    """A blob shaped like ``like`` filled with ``value`` (dtype of ``like`` by default)."""
    public = "flow.constant_like"
    name = check_name(public, name)
    require_blob(public, like, "like", name)
    dt = None if dtype is None else dtype_arg(public, dtype, name).np_dtype
    return apply_op(
        "constant_like",
        _lower_full_like,
        [like],
        attrs={"value": value, "dtype": dt},
        name=name,
        prefix="ConstantLike",
        elementwise=True,
    )


def zeros_like(like: Blob, dtype: Any = None, name: str | None = None) -> Blob:
    """Zeros shaped like ``like``."""
    return constant_like(like, 0, dtype, name)


def ones_like(like: Blob, dtype: Any = None, name: str | None = None) -> Blob:
    """Ones shaped like ``like``."""
    return constant_like(like, 1, dtype, name)


def _lower_cast(x, *, dtype):
    return x.astype(dtype)


def cast(x: Blob, dtype: Any, name: str | None = None) -> Blob:
    """``x`` converted to ``dtype``; returns ``x`` itself when it already has that dtype."""
    public = "flow.cast"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    dt = dtype_arg(public, dtype, name)
    if x.dtype == dt:
        return x
    return apply_op(
        "cast",
        _lower_cast,
        [x],
        attrs={"dtype": dt.np_dtype},
        name=name,
        prefix="Cast",
        elementwise=True,
    )


def _lower_identity(x, **_attrs):
    return x


def identity(x: Blob, name: str | None = None) -> Blob:
    """A new blob with the same value (a separate op to watch or name)."""
    public = "flow.identity"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    return apply_op(
        "identity", _lower_identity, [x], name=name, prefix="Identity", elementwise=True
    )


def with_distribute(x: Blob, distribute: Distribute) -> Blob:
    """``x`` annotated with an SBP distribution (recorded; single-device runs ignore it)."""
    public = "Blob.with_distribute"
    require_blob(public, x, "x")
    if not isinstance(distribute, Distribute):
        fail(
            public,
            "distribute must be flow.distribute.split(axis), broadcast() or auto(), "
            f"got {distribute!r}",
        )
    if distribute.kind == "split":
        norm_axis(public, distribute.axis, x.ndim, what="split axis")
    return apply_op(
        "with_distribute",
        _lower_identity,
        [x],
        attrs={"distribute": distribute},
        prefix="WithDistribute",
        elementwise=True,
    )


def _lower_range(*, start, limit, delta, dtype):
    return jnp.arange(start, limit, delta, dtype=dtype)


def range(
    start: int,
    limit: int | None = None,
    delta: int = 1,  # noqa: A001 - OneFlow's name
    dtype: Any = None,
    name: str | None = None,
) -> Blob:
    """``[start, start + delta, ...)`` below ``limit`` (``range(n)``: ``0..n-1``), default
    dtype int64."""
    public = "flow.range"
    name = check_name(public, name)
    if limit is None:
        start, limit = 0, start
    for what, v in (("start", start), ("limit", limit), ("delta", delta)):
        if type(v) is not int:
            fail(public, f"{what} must be an int, got {v!r}", name)
    if delta <= 0 or limit <= start:
        fail(
            public,
            f"needs start < limit and delta > 0, got start={start}, limit={limit}, delta={delta}",
            name,
        )
    dt = _dtypes.int64 if dtype is None else _dtypes.as_dtype(dtype)
    return apply_op(
        "range",
        _lower_range,
        [],
        attrs={"start": start, "limit": limit, "delta": delta, "dtype": dt.np_dtype},
        name=name,
        prefix="Range",
    )


def _lower_identity_n(*xs):
    return tuple(xs)


_IDENTITY_N_REAL = RealShape(lambda shapes, padded: list(shapes))


def identity_n(inputs: Sequence[Blob], name: str | None = None) -> list[Blob]:
    """A new blob with the same value for each of ``inputs`` (one op, ``IdentityN_<n>``)."""
    public = "flow.identity_n"
    name = check_name(public, name)
    if not isinstance(inputs, (list, tuple)) or not inputs:
        fail(public, f"inputs must be a non-empty list of blobs, got {inputs!r}", name)
    for i, b in enumerate(inputs):
        require_blob(public, b, f"inputs[{i}]", name)
    out = apply_op(
        "tuple_identity",
        _lower_identity_n,
        list(inputs),
        name=name,
        prefix="IdentityN",
        real_shape=_IDENTITY_N_REAL,
    )
    return list(out) if isinstance(out, tuple) else [out]


def amp_white_identity(x: Blob, name: str | None = None) -> Blob:
    """``x`` itself as a new op (OneFlow marks it for mixed precision; XLA needs no mark)."""
    return identity(x, name=name)
