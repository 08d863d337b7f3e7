"""Selecting elements: ``flow.where``, ``masked_fill``, ``gather`` (with ``batch_dims``),
``gather_nd``, ``dim_gather`` and ``one_hot``.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtypes
from ..graph import Blob, RealShape, apply_op, current_graph
from ..graph._real_shape import elementwise_or_broadcasting
from ._creation import constant_like
from ._data_dependent import argwhere
from ._util import (
    as_constant,
    broadcast_shape,
    check_name,
    dtype_arg,
    fail,
    is_constant,
    norm_axis,
    require_blob,
    require_int_blob,
)


def _lower_where(cond, x, y):
    return jnp.where(cond != 0, x, y)


def _lower_where_const(cond, *args, x_const, y_const, has_x):
    rest = list(args)
    x = rest.pop(0) if has_x else x_const
    y = rest.pop(0) if rest else y_const
    return jnp.where(cond != 0, x, y)


def where(condition: Blob, x: Any = None, y: Any = None, name: str | None = None) -> Blob:
    """``x`` where ``condition`` is nonzero, else ``y``; all three broadcast together. Without
    ``x`` and ``y``: ``flow.argwhere(condition)``."""
    public = "flow.where"
    name = check_name(public, name)
    require_blob(public, condition, "condition", name)
    if x is None and y is None:  # OneFlow's one-argument form
        return argwhere(condition, name=name)
    if x is None or y is None:
        fail(public, "takes both x and y, or neither (flow.argwhere); got only one", name)
    blobs = [v for v in (x, y) if isinstance(v, Blob)]
    for what, v in (("x", x), ("y", y)):
        if not isinstance(v, Blob) and not is_constant(v):
            fail(
                public, f"{what} must be a blob or a numeric constant, got {type(v).__name__}", name
            )
    like = blobs[0].dtype if blobs else _dtypes.float32
    xc = x if isinstance(x, Blob) else as_constant(public, x, like, name)
    yc = y if isinstance(y, Blob) else as_constant(public, y, like, name)
    shapes = [v.shape if isinstance(v, Blob) else np.shape(v) for v in (condition, xc, yc)]
    out = broadcast_shape(public, shapes, name)
    if isinstance(x, Blob) and isinstance(y, Blob):
        inputs = [condition, x, y]
        real = elementwise_or_broadcasting(_lower_where, [b.shape for b in inputs], out)
        return apply_op("where", _lower_where, inputs, name=name, prefix="Where", real_shape=real)
    attrs = {
        "x_const": None if isinstance(x, Blob) else xc,
        "y_const": None if isinstance(y, Blob) else yc,
        "has_x": isinstance(x, Blob),
    }
    inputs = [condition, *blobs]
    return apply_op(
        "where",
        _lower_where_const,
        inputs,
        attrs=attrs,
        name=name,
        prefix="Where",
        real_shape=elementwise_or_broadcasting(_lower_where_const, [b.shape for b in inputs], out),
    )


def _take(params, indices, axis, size=None):
    # OneFlow's kernel writes zeros for indices outside [0, size): model-parallel embeddings
    # rely on it (each device holds a range of rows). ``size``: a dynamic axis' real size.
    size = params.shape[axis] if size is None else size
    valid = (indices >= 0) & (indices < size)
    out = jnp.take(params, jnp.clip(indices, 0, params.shape[axis] - 1), axis=axis)
    mask = valid.reshape(valid.shape + (1,) * (params.ndim - axis - 1))
    return jnp.where(mask, out, jnp.zeros((), params.dtype))


def _lower_gather(params, indices, *, axis, batch_dims, size=None):
    fn = _take
    for _ in range(batch_dims):
        fn = jax.vmap(fn, in_axes=(0, 0, None, None))
    return fn(params, indices, axis - batch_dims, size)


def _gather_real(shapes, padded, *, axis, batch_dims):
    params, indices = (tuple(s) for s in shapes)
    if params[:batch_dims] != indices[:batch_dims]:
        raise ValueError(
            f"the real batch dimensions of params {params} and indices {indices} differ"
        )
    return params[:axis] + indices[batch_dims:] + params[axis + 1 :]


def _masked_gather(params, indices, *, real, axis, batch_dims):
    # Indices past the real size of a dynamic axis give zeros, as past the end of a static one.
    return _lower_gather(params, indices, axis=axis, batch_dims=batch_dims, size=real[0][axis])


_GATHER_REAL = RealShape(_gather_real, _masked_gather)


def gather(
    params: Blob,
    indices: Blob,
    validate_indices: Any = None,
    axis: int | None = None,
    batch_dims: int = 0,
    name: str | None = None,
) -> Blob:
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
    require_int_blob(public, indices, "indices", name)
    if not isinstance(batch_dims, int) or not 0 <= batch_dims <= min(indices.ndim, params.ndim):
        fail(
            public,
            f"batch_dims must be an int in [0, {min(indices.ndim, params.ndim)}], "
            f"got {batch_dims!r}",
            name,
        )
    axis = norm_axis(public, batch_dims if axis is None else axis, params.ndim, name)
    if axis < batch_dims:
        fail(public, f"axis {axis} must not be smaller than batch_dims {batch_dims}", name)
    nb = batch_dims
    if batch_dims and axis == batch_dims:
        # OneFlow's batch_gather, which ignores batch_dims' value (BERT passes
        # axis=2, batch_dims=2 with indices of rank 2).
        nb = axis = indices.ndim - 1
        if nb >= params.ndim:
            fail(
                public,
                f"batch_gather needs indices of lower rank than params: got indices "
                f"{indices.shape}, params {params.shape}",
                name,
            )
    if params.shape[:nb] != indices.shape[:nb]:
        fail(
            public,
            f"the first {nb} (batch) dimensions differ: params {params.shape}, "
            f"indices {indices.shape}",
            name,
        )
    prefix = "BatchGather" if batch_dims else "Gather"
    return apply_op(
        "gather",
        _lower_gather,
        [params, indices],
        attrs={"axis": axis, "batch_dims": nb},
        name=name,
        prefix=prefix,
        real_shape=_GATHER_REAL,
    )


def _lower_one_hot(indices, *, depth, on_value, off_value, axis, dtype):
    hot = jnp.expand_dims(indices, axis) == jnp.arange(depth).reshape(
        (depth,) + (1,) * (indices.ndim - axis)
    )
    return jnp.where(hot, jnp.asarray(on_value, dtype), jnp.asarray(off_value, dtype))


def _one_hot_real(shapes, padded, *, depth, axis, **_):
    return tuple(shapes[0][:axis]) + (depth,) + tuple(shapes[0][axis:])


_ONE_HOT_REAL = RealShape(_one_hot_real)


def one_hot(
    indices: Blob,
    depth: int,
    on_value: float = 1,
    off_value: float = 0,
    axis: int = -1,
    dtype: Any = None,
    name: str | None = None,
) -> Blob:
    """A new axis ``axis`` of size ``depth`` holding ``on_value`` at each index, else
    ``off_value`` (default dtype float32). Out-of-range indices give all ``off_value``."""
    public = "flow.one_hot"
    name = check_name(public, name)
    require_int_blob(public, indices, "indices", name)
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
        fail(public, f"depth must be an int >= 1, got {depth!r}", name)
    axis = norm_axis(public, axis, indices.ndim + 1, name)
    dt = _dtypes.float32 if dtype is None else dtype_arg(public, dtype, name)
    return apply_op(
        "one_hot",
        _lower_one_hot,
        [indices],
        attrs={
            "depth": depth,
            "on_value": on_value,
            "off_value": off_value,
            "axis": axis,
            "dtype": dt.np_dtype,
        },
        name=name,
        prefix="OneHot",
        real_shape=_ONE_HOT_REAL,
    )


def _lower_gather_nd(params, indices):
    k = indices.shape[-1]
    flat = indices.reshape(-1, k)
    picked = params[tuple(flat[:, i] for i in range(k))]  # JAX clamps out-of-range indices
    out = picked.reshape(indices.shape[:-1] + params.shape[k:])
    return out.reshape((1,)) if out.ndim == 0 else out


def _gather_nd_real(shapes, padded, **_):
    params, indices = shapes
    k = indices[-1]
    if padded[1] is not None and k != padded[1][-1]:
        raise ValueError(
            f"the index tuples in the last axis of indices have real width {k}, "
            f"not the declared {padded[1][-1]}"
        )
    return indices[:-1] + params[k:]


# Padded index rows read some element; their results lie in the padding that is cut off.
_GATHER_ND_REAL = RealShape(_gather_nd_real)


def gather_nd(params: Blob, indices: Blob, name: str | None = None) -> Blob:
    """Slices of ``params`` at the index tuples in the last axis of ``indices``.

    With ``k = indices.shape[-1]``, the result has shape
    ``indices.shape[:-1] + params.shape[k:]`` (a 0-d result is ``(1,)``, as OneFlow).
    OneFlow leaves out-of-range indices undefined; flowjob clamps them into range.
    """
    public = "flow.gather_nd"
    name = check_name(public, name)
    require_blob(public, params, "params", name)
    require_int_blob(public, indices, "indices", name)
    if indices.ndim < 1 or not 1 <= indices.shape[-1] <= params.ndim:
        fail(
            public,
            f"the last axis of indices {indices.shape} holds index tuples and must "
            f"have size 1..{params.ndim} (the rank of params {params.shape})",
            name,
        )
    return apply_op(
        "gather_nd",
        _lower_gather_nd,
        [params, indices],
        name=name,
        prefix="GatherNd",
        real_shape=_GATHER_ND_REAL,
    )


def _lower_dim_gather(x, index, *, dim):
    x = x[tuple(slice(0, n) if d != dim else slice(None) for d, n in enumerate(index.shape))]
    return jnp.take_along_axis(x, index.astype(jnp.int32), axis=dim)


def dim_gather(input: Blob, dim: int, index: Blob, name: str | None = None) -> Blob:  # noqa: A002
    """``out[..., j, ...] = input[..., index[..., j, ...], ...]`` along ``dim`` (PyTorch's
    ``gather``); ``index`` has ``input``'s rank and is no larger on the other axes."""
    public = "flow.dim_gather"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    require_int_blob(public, index, "index", name)
    dim = norm_axis(public, dim, input.ndim, name, "dim")
    if index.ndim != input.ndim or any(
        i > n for d, (i, n) in enumerate(zip(index.shape, input.shape)) if d != dim
    ):
        fail(
            public,
            f"index {index.shape} must have the rank of input {input.shape} and be no "
            f"larger on every axis but {dim}",
            name,
        )
    return apply_op(
        "dim_gather",
        _lower_dim_gather,
        [input, index],
        attrs={"dim": dim},
        name=name,
        prefix="DimGather",
    )


def masked_fill(x: Blob, mask: Blob, value: float, name: str | None = None) -> Blob:
    """``value`` where ``mask`` is nonzero, else ``x`` (two ops, as OneFlow)."""
    public = "flow.masked_fill"
    check_name(public, name)
    require_blob(public, x, "x", name)
    require_blob(public, mask, "mask", name)
    if name is None:
        name = current_graph().unique_name("MaskedFill")
    filled = constant_like(x, value, name=name + "_ConstantLike")
    return where(mask, filled, x, name=name + "_Where")
