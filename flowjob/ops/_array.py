"""Array creation, dtype casts, selection (where/gather/one_hot), indexing and identities."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtypes
from ..graph import Blob, Distribute, apply_op
from ._util import (
    as_constant,
    broadcast_shape,
    check_name,
    fail,
    is_constant,
    norm_axis,
    require_blob,
    shape_tuple,
)


def _dtype(op: str, dtype: Any, name: str | None) -> _dtypes.DType:
    try:
        return _dtypes.as_dtype(dtype)
    except TypeError as exc:
        fail(op, f"dtype: {exc}", name)


def _lower_constant(*, value, shape, dtype):
    return jnp.full(shape, value, dtype=dtype)


def constant(value: float, dtype: Any = None, shape: Sequence[int] | None = None,
             name: str | None = None) -> Blob:
    """A blob of ``shape`` filled with ``value`` (default dtype float32). No shape (or ``()``)
    gives shape ``(1,)``, as OneFlow (which has no 0-d blobs)."""
    public = "flow.constant"
    name = check_name(public, name)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        fail(public, f"value must be an int or float, got {type(value).__name__}: {value!r}",
             name)
    dt = _dtypes.float32 if dtype is None else _dtype(public, dtype, name)
    dims = () if shape is None else shape_tuple(public, shape, name=name)
    return apply_op("constant", _lower_constant, [],
                    attrs={"value": value, "shape": dims or (1,), "dtype": dt.np_dtype},
                    name=name, prefix="Constant")


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
    dt = None if dtype is None else _dtype(public, dtype, name).np_dtype
    return apply_op("constant_like", _lower_full_like, [like], attrs={"value": value, "dtype": dt},
                    name=name, prefix="ConstantLike", elementwise=True)


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
    dt = _dtype(public, dtype, name)
    if x.dtype == dt:
        return x
    return apply_op("cast", _lower_cast, [x], attrs={"dtype": dt.np_dtype}, name=name,
                    prefix="Cast", elementwise=True)


def _lower_identity(x, **_attrs):
    return x


def identity(x: Blob, name: str | None = None) -> Blob:
    """A new blob with the same value (a separate op to watch or name)."""
    public = "flow.identity"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    return apply_op("identity", _lower_identity, [x], name=name, prefix="Identity",
                    elementwise=True)


def with_distribute(x: Blob, distribute: Distribute) -> Blob:
    """``x`` annotated with an SBP distribution (recorded; single-device runs ignore it)."""
    public = "Blob.with_distribute"
    require_blob(public, x, "x")
    if not isinstance(distribute, Distribute):
        fail(public, "distribute must be flow.distribute.split(axis), broadcast() or auto(), "
                     f"got {distribute!r}")
    if distribute.kind == "split":
        norm_axis(public, distribute.axis, x.ndim, what="split axis")
    return apply_op("with_distribute", _lower_identity, [x], attrs={"distribute": distribute},
                    prefix="WithDistribute", elementwise=True)


def _lower_where(cond, x, y):
    return jnp.where(cond != 0, x, y)


def _lower_where_const(cond, *args, x_const, y_const, has_x):
    rest = list(args)
    x = rest.pop(0) if has_x else x_const
    y = rest.pop(0) if rest else y_const
    return jnp.where(cond != 0, x, y)


def where(condition: Blob, x: Any = None, y: Any = None, name: str | None = None) -> Blob:
    """``x`` where ``condition`` is nonzero, else ``y``; all three broadcast together."""
    public = "flow.where"
    name = check_name(public, name)
    require_blob(public, condition, "condition", name)
    if x is None or y is None:
        fail(public, "needs both x and y: the one-argument (argwhere) form produces a dynamic "
                     "shape, which flowjob does not support", name)
    blobs = [v for v in (x, y) if isinstance(v, Blob)]
    for what, v in (("x", x), ("y", y)):
        if not isinstance(v, Blob) and not is_constant(v):
            fail(public, f"{what} must be a blob or a numeric constant, got {type(v).__name__}",
                 name)
    like = blobs[0].dtype if blobs else _dtypes.float32
    xc = x if isinstance(x, Blob) else as_constant(public, x, like, name)
    yc = y if isinstance(y, Blob) else as_constant(public, y, like, name)
    shapes = [v.shape if isinstance(v, Blob) else np.shape(v) for v in (condition, xc, yc)]
    broadcast_shape(public, shapes, name)
    if isinstance(x, Blob) and isinstance(y, Blob):
        return apply_op("where", _lower_where, [condition, x, y], name=name, prefix="Where")
    attrs = {"x_const": None if isinstance(x, Blob) else xc,
             "y_const": None if isinstance(y, Blob) else yc, "has_x": isinstance(x, Blob)}
    return apply_op("where", _lower_where_const, [condition, *blobs], attrs=attrs, name=name,
                    prefix="Where")


def _take(params, indices, axis):
    # OneFlow's kernel writes zeros for indices outside [0, size): model-parallel embeddings
    # rely on it (each device holds a range of rows).
    size = params.shape[axis]
    valid = (indices >= 0) & (indices < size)
    out = jnp.take(params, jnp.clip(indices, 0, size - 1), axis=axis)
    mask = valid.reshape(valid.shape + (1,) * (params.ndim - axis - 1))
    return jnp.where(mask, out, jnp.zeros((), params.dtype))


def _lower_gather(params, indices, *, axis, batch_dims):
    fn = _take
    for _ in range(batch_dims):
        fn = jax.vmap(fn, in_axes=(0, 0, None))
    return fn(params, indices, axis - batch_dims)


def gather(params: Blob, indices: Blob, validate_indices: Any = None, axis: int | None = None,
           batch_dims: int = 0, name: str | None = None) -> Blob:
    """Slices of ``params`` along ``axis`` (default ``batch_dims``) picked by integer
    ``indices``; indices outside ``[0, size)`` give zeros, as OneFlow's kernel.

    Output shape: ``params.shape[:axis] + indices.shape[nb:] + params.shape[axis+1:]`` where
    the first ``nb`` axes of both are batch axes. With ``batch_dims > 0`` and
    ``axis == batch_dims`` this is OneFlow's ``batch_gather``: ``nb = indices.ndim - 1``,
    every axis of ``indices`` but the last is a batch axis (TensorFlow's meaning when
    ``indices.ndim == batch_dims + 1``). OneFlow v0.4 rejects ``axis > batch_dims``; flowjob
    gathers there with ``nb = batch_dims`` (TensorFlow's meaning).
    """
    public = "flow.gather"
    name = check_name(public, name)
    require_blob(public, params, "params", name)
    require_blob(public, indices, "indices", name)
    if indices.dtype.np_dtype.kind not in "iu":
        fail(public, f"indices must be integers, got {indices.dtype.name}", name)
    if not isinstance(batch_dims, int) or not 0 <= batch_dims <= min(indices.ndim, params.ndim):
        fail(public, f"batch_dims must be an int in [0, {min(indices.ndim, params.ndim)}], "
                     f"got {batch_dims!r}", name)
    axis = norm_axis(public, batch_dims if axis is None else axis, params.ndim, name)
    if axis < batch_dims:
        fail(public, f"axis {axis} must not be smaller than batch_dims {batch_dims}", name)
    nb = batch_dims
    if batch_dims and axis == batch_dims:
        nb = axis = indices.ndim - 1  # OneFlow's batch_gather
        if nb < batch_dims or nb >= params.ndim:
            fail(public, f"batch_gather needs indices of rank batch_dims + 1 or more and below "
                         f"the rank of params: got indices {indices.shape}, params "
                         f"{params.shape}, batch_dims={batch_dims}", name)
    if params.shape[:nb] != indices.shape[:nb]:
        fail(public, f"the first {nb} (batch) dimensions differ: params {params.shape}, "
                     f"indices {indices.shape}", name)
    prefix = "BatchGather" if batch_dims else "Gather"
    return apply_op("gather", _lower_gather, [params, indices],
                    attrs={"axis": axis, "batch_dims": nb}, name=name, prefix=prefix)


def _lower_one_hot(indices, *, depth, on_value, off_value, axis, dtype):
    hot = jnp.expand_dims(indices, axis) == jnp.arange(depth).reshape(
        (depth,) + (1,) * (indices.ndim - axis))
    return jnp.where(hot, jnp.asarray(on_value, dtype), jnp.asarray(off_value, dtype))


def one_hot(indices: Blob, depth: int, on_value: float = 1, off_value: float = 0, axis: int = -1,
            dtype: Any = None, name: str | None = None) -> Blob:
    """A new axis ``axis`` of size ``depth`` holding ``on_value`` at each index, else
    ``off_value`` (default dtype float32). Out-of-range indices give all ``off_value``."""
    public = "flow.one_hot"
    name = check_name(public, name)
    require_blob(public, indices, "indices", name)
    if indices.dtype.np_dtype.kind not in "iu":
        fail(public, f"indices must be integers, got {indices.dtype.name}", name)
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
        fail(public, f"depth must be an int >= 1, got {depth!r}", name)
    axis = norm_axis(public, axis, indices.ndim + 1, name)
    dt = _dtypes.float32 if dtype is None else _dtype(public, dtype, name)
    return apply_op("one_hot", _lower_one_hot, [indices],
                    attrs={"depth": depth, "on_value": on_value, "off_value": off_value,
                           "axis": axis, "dtype": dt.np_dtype}, name=name, prefix="OneHot")


def _lower_getitem(x, *, key):
    return x[key]


def getitem(x: Blob, key: Any) -> Blob:
    """``blob[key]`` with ints, slices, ``...`` and ``None`` (new axis), like NumPy basic
    indexing."""
    public = "Blob.__getitem__"
    items = key if isinstance(key, tuple) else (key,)
    if sum(k is Ellipsis for k in items) > 1:
        fail(public, f"an index can only have a single ellipsis, got {key!r}")
    consumed = sum(1 for k in items if k is not None and k is not Ellipsis)
    if consumed > x.ndim:
        fail(public, f"too many indices for {x.lbn} of rank {x.ndim}: {key!r}")
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items = items[:at] + (slice(None),) * (x.ndim - consumed) + items[at + 1:]
    norm: list[Any] = []
    dim = 0
    for k in items:
        if k is None:
            norm.append(None)
            continue
        if isinstance(k, Blob):
            fail(public, "indexing with a blob is not supported; use flow.gather(params, "
                         "indices, axis=...)")
        size = x.shape[dim]
        if isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            if not -size <= k < size:
                fail(public, f"index {int(k)} is out of range for axis {dim} of size {size} "
                             f"({x.lbn} has shape {x.shape})")
            norm.append(int(k) % size)
        elif isinstance(k, slice):
            parts = (k.start, k.stop, k.step)
            if not all(p is None or (isinstance(p, (int, np.integer)) and not isinstance(p, bool))
                       for p in parts):
                fail(public, f"slice bounds must be ints or None, got {k!r}")
            if k.step == 0:
                fail(public, f"slice step cannot be 0 (axis {dim})")
            norm.append(slice(*(None if p is None else int(p) for p in parts)))
        else:
            fail(public, f"unsupported index {k!r} of type {type(k).__name__}: use ints, "
                         "slices, ... and None")
        dim += 1
    return apply_op("getitem", _lower_getitem, [x], attrs={"key": tuple(norm)}, prefix="Slice")
