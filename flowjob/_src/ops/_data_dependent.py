"""Ops whose result size depends on the input values: ``flow.sync_dynamic_resize``,
``flow.argwhere`` and ``flow.nonzero``.

Their results are dynamic blobs held padded to the largest size the inputs allow; the program
works out their real size (``RealShape.device``, graph/_real_shape.py) and results are cut to
it when fetched. As in OneFlow, ``argwhere`` is a fixed-size op followed by
``sync_dynamic_resize`` of its padded indices to the count of non-zero elements.
"""

from __future__ import annotations

import math
from typing import Any

import jax.numpy as jnp

from .. import _dtypes
from ..graph import Blob, RealShape, apply_op, valid_mask
from ._shape import transpose
from ._util import check_name, dtype_arg, fail, require_blob, require_int_blob


def _lower_resize(x, size):
    return x


def _resized(x, size, *, real):
    # the first axis becomes ``size`` (at most x's real first dimension), the others stay
    rows = jnp.minimum(size.reshape(1).astype(jnp.int32), real[0][:1])
    return jnp.concatenate([rows, real[0][1:]])


_RESIZE_REAL = RealShape(lambda shapes, padded: tuple(shapes[0]), device=_resized)


def sync_dynamic_resize(inputs: Blob, size: Blob, name: str | None = None) -> Blob:
    """``inputs`` cut to its first ``size`` rows (``size``: a ``(1,)`` integer blob): a dynamic
    blob whose real first dimension is that value, padded to ``inputs``' shape."""
    public = "flow.sync_dynamic_resize"
    name = check_name(public, name)
    require_blob(public, inputs, "inputs", name)
    require_int_blob(public, size, "size", name)
    if inputs.ndim == 0:
        fail(public, f"inputs must have at least one axis, got {inputs.lbn} of shape ()", name)
    if size.shape != (1,):
        fail(public, f"size must have shape (1,), got {size.lbn} of shape {size.shape}", name)
    return apply_op(
        "sync_dynamic_resize",
        _lower_resize,
        [inputs, size],
        name=name,
        prefix="SyncDynamicResize",
        real_shape=_RESIZE_REAL,
    )


def _lower_argwhere(x, *, dtype):
    # OneFlow's argwhere op: the coordinates of the non-zero elements in row-major order, then
    # zeros, and their count
    found = x != 0
    count = jnp.sum(found, dtype=dtype).reshape(1)
    if x.ndim == 0:
        return jnp.zeros((1, 0), dtype), count
    flat = jnp.nonzero(found.reshape(-1), size=x.size, fill_value=0)[0]
    coords = jnp.stack(jnp.unravel_index(flat, x.shape), axis=-1)
    valid = jnp.arange(x.size) < count[0]
    return jnp.where(valid[:, None], coords, 0).astype(dtype), count


def _masked_argwhere(x, *, real, dtype):
    # a dynamic condition's real part is its leading corner: row-major order is the same in it
    # and in the padded array, so its non-zero elements outside that corner are dropped
    return _lower_argwhere(jnp.where(valid_mask(real[0], x.shape), x, 0), dtype=dtype)


_ARGWHERE_REAL = RealShape(
    lambda shapes, padded, *, dtype: [(math.prod(padded[0]), len(padded[0])), (1,)],
    _masked_argwhere,
)


def argwhere(condition: Blob, dtype: Any = None, name: str | None = None) -> Blob:
    """The coordinates of the non-zero elements of ``condition``, one row each in row-major
    order: a dynamic blob of real shape ``(count, ndim)`` (``dtype``, default int32)."""
    public = "flow.argwhere"
    name = check_name(public, name)
    require_blob(public, condition, "condition", name)
    dt = _dtypes.int32 if dtype is None else dtype_arg(public, dtype, name)
    if dt.np_dtype.kind not in "iu":
        fail(public, f"dtype must be an integer dtype, got {dt.name}", name)
    coords, count = apply_op(
        "argwhere",
        _lower_argwhere,
        [condition],
        attrs={"dtype": dt.np_dtype},
        name=name,
        prefix="ArgWhere",
        real_shape=_ARGWHERE_REAL,
    )
    return sync_dynamic_resize(
        coords, count, name=None if name is None else f"{name}_sync_dynamic_resize"
    )


def nonzero(a: Blob, name: str | None = None) -> Blob:
    """``argwhere(a)`` transposed: row ``i`` holds the axis-``i`` coordinates of the non-zero
    elements of ``a``; real shape ``(ndim, count)``."""
    public = "flow.nonzero"
    name = check_name(public, name)
    require_blob(public, a, "a", name)
    where = argwhere(a, name=None if name is None else f"{name}_ArgWhere")
    return transpose(where, perm=(1, 0), name=None if name is None else f"{name}_Transpose")
