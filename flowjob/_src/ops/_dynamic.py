"""Ops about dynamic blobs' sizes: ``flow.elem_cnt``, ``flow.dynamic_reshape`` and
``flow.cast_to_static_shape``.

A dynamic blob (``tp.ListNumpy``) is held padded to its placeholder's shape; these ops read or
change its *real* shape (graph/_real_shape.py). On static blobs they are ``numel``,
``reshape`` and ``identity``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp

from .. import _dtypes
from ..graph import Blob, RealShape, apply_op, valid_mask
from ._util import check_name, fail, require_blob, shape_tuple


def _lower_elem_cnt(x, *, dtype):
    return jnp.full((1,), x.size, dtype)


def _masked_elem_cnt(x, *, real, dtype):
    return jnp.prod(real[0].astype(dtype), dtype=dtype).reshape((1,))


_ELEM_CNT_REAL = RealShape(lambda shapes, padded, **_: (1,), _masked_elem_cnt)


def elem_cnt(inputs: Blob, dtype: Any = None, name: str | None = None) -> Blob:
    """The number of elements of ``inputs`` (its real size if dynamic), a ``(1,)`` blob of
    ``dtype`` (default int32, as OneFlow's ``shape_elem_cnt``)."""
    public = "flow.elem_cnt"
    name = check_name(public, name)
    require_blob(public, inputs, "inputs", name)
    dt = _dtypes.int32 if dtype is None else _dtypes.as_dtype(dtype)
    return apply_op(
        "shape_elem_cnt",
        _lower_elem_cnt,
        [inputs],
        attrs={"dtype": dt.np_dtype},
        name=name,
        prefix="ElemCnt",
        real_shape=_ELEM_CNT_REAL,
    )


def _infer(dims: Sequence[int], count: Any) -> list[Any]:
    """``dims`` with its ``-1`` replaced so that the product is ``count``."""
    known = math.prod(d for d in dims if d != -1)
    return [count // known if d == -1 else d for d in dims]


def _lower_reshape(x, *, shape, padded_shape):
    return x.reshape(padded_shape)


def _masked_dynamic_reshape(x, *, real, shape, padded_shape):
    # The k-th real element (row-major in the real input shape) goes to the k-th position of
    # the real output shape inside the padded output; the padding is zero.
    in_real = real[0]
    out_real = jnp.stack(_infer(shape, jnp.prod(in_real)))
    index = jnp.indices(padded_shape).reshape(len(padded_shape), -1)
    inside = jnp.all(index < out_real[:, None], axis=0)
    k = jnp.zeros(index.shape[1], jnp.int64)
    for d in range(len(padded_shape)):
        k = k * out_real[d] + index[d]
    source = []
    for d in reversed(range(x.ndim)):
        source.append(k % in_real[d])
        k = k // in_real[d]
    values = x[tuple(jnp.where(inside, s, 0) for s in reversed(source))]
    return jnp.where(inside, values, jnp.zeros((), x.dtype)).reshape(padded_shape)


def _dynamic_reshape_real(shapes, padded, *, shape, padded_shape):
    count = math.prod(shapes[0])
    dims = _infer(shape, count)
    if math.prod(dims) != count or any(d > p for d, p in zip(dims, padded_shape)):
        raise ValueError(
            f"its input of real shape {tuple(shapes[0])} does not fit shape "
            f"{tuple(shape)} (at most {padded_shape})"
        )
    return tuple(dims)


_DYNAMIC_RESHAPE_REAL = RealShape(_dynamic_reshape_real, _masked_dynamic_reshape)


def dynamic_reshape(x: Blob, shape: Sequence[int], name: str | None = None) -> Blob:
    """``x`` reshaped to ``shape``, whose one ``-1`` takes the rest of the *real* element
    count of a dynamic ``x`` (of the padded count for its maximum shape)."""
    public = "flow.dynamic_reshape"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    dims = list(shape_tuple(public, shape, name=name, allow_minus_one=True))
    if dims.count(-1) > 1 or any(d == 0 for d in dims):
        fail(public, f"shape takes positive sizes and at most one -1, got {tuple(shape)}", name)
    known = math.prod(d for d in dims if d != -1)
    if (-1 in dims and x.numel() % known) or (-1 not in dims and known != x.numel()):
        fail(
            public,
            f"cannot reshape {x.lbn} of shape {x.shape} ({x.numel()} elements) into {tuple(shape)}",
            name,
        )
    padded_shape = tuple(_infer(dims, x.numel()))
    return apply_op(
        "dynamic_reshape",
        _lower_reshape,
        [x],
        attrs={"shape": tuple(dims), "padded_shape": padded_shape},
        name=name,
        prefix="DynamicReshape",
        real_shape=_DYNAMIC_RESHAPE_REAL,
    )


def _lower_identity(x):
    return x


def _masked_to_static(x, *, real):
    return jnp.where(valid_mask(real[0], x.shape), x, jnp.zeros((), x.dtype))


_TO_STATIC_REAL = RealShape(lambda shapes, padded: tuple(padded[0] or shapes[0]), _masked_to_static)


def cast_to_static_shape(x: Blob, name: str | None = None) -> Blob:
    """``x`` at its full (placeholder) shape, as a static blob: a dynamic ``x``'s real part
    with zeros after it; a static ``x`` unchanged."""
    public = "flow.cast_to_static_shape"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    return apply_op(
        "cast_to_static_shape",
        _lower_identity,
        [x],
        name=name,
        prefix="CastToStaticShape",
        real_shape=_TO_STATIC_REAL,
        static_outputs=True,  # OneFlow's output is static: any op may take it
    )
