"""Host values of tensor buffers: a batch of arrays whose shapes may differ.

In the data pipeline a tensor-buffer blob of shape ``S`` holds a NumPy object array of shape
``S`` whose elements are ordinary arrays (one per instance, each with its own shape and
dtype). Producers may hand over a plain list for a 1-D buffer; :func:`items` reads both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import FlowJobError
from ..graph import TensorList


class TensorBufferError(FlowJobError, ValueError):
    """An instance of a tensor buffer does not fit what an op needs (shape, dtype, rank);
    the message names the op and the instance's index."""


def items(value: Any) -> list[np.ndarray]:
    """The instances of a host tensor-buffer value, flattened in C order."""
    if isinstance(value, np.ndarray) and value.dtype == object:
        return list(value.ravel())
    return list(value)


def make(instances: Sequence[np.ndarray], shape: Sequence[int] | None = None) -> np.ndarray:
    """An object array of ``shape`` (1-D by default) holding ``instances`` (never stacked)."""
    out = np.empty(len(instances), dtype=object)
    for i, x in enumerate(instances):
        out[i] = x
    return out.reshape(tuple(shape)) if shape is not None else out


def check_instance(
    op: str,
    i: int,
    x: np.ndarray,
    *,
    ndim: int | None = None,
    last: int | None = None,
    dtype_kind: str | None = None,
) -> np.ndarray:
    """Instance ``i`` of op ``op``'s input, checked for rank, last axis and dtype kind."""
    if not isinstance(x, np.ndarray):
        raise TensorBufferError(f"{op}: instance {i} is a {type(x).__name__}, not an array")
    if ndim is not None and x.ndim != ndim:
        raise TensorBufferError(f"{op}: instance {i} must have {ndim} axes, got shape {x.shape}")
    if last is not None and x.shape[-1] != last:
        raise TensorBufferError(
            f"{op}: instance {i} must have {last} values on its last axis, got shape {x.shape}"
        )
    if dtype_kind is not None and x.dtype.kind not in dtype_kind:
        raise TensorBufferError(
            f"{op}: instance {i} has dtype {x.dtype}, which this op does not take"
        )
    return x


def split(array: np.ndarray, instance_dims: int) -> np.ndarray:
    """``tensor_to_tensor_buffer``: the last ``instance_dims`` axes become the instances."""
    outer = array.shape[: array.ndim - instance_dims]
    inner = array.shape[array.ndim - instance_dims :]
    flat = np.ascontiguousarray(array).reshape(-1, *inner)
    return make([flat[i].copy() for i in range(flat.shape[0])], outer)


def join(
    value: Any, outer: Sequence[int], instance_shape: Sequence[int], dtype: np.dtype, op: str
) -> np.ndarray:
    """``tensor_buffer_to_tensor``: every instance must have exactly ``instance_shape`` and
    ``dtype`` (OneFlow checks both; it converts nothing)."""
    instance_shape = tuple(instance_shape)
    parts = items(value)
    out = np.empty((len(parts), *instance_shape), dtype)
    for i, x in enumerate(parts):
        x = np.asarray(x)
        if x.shape != instance_shape or x.dtype != dtype:
            raise TensorBufferError(
                f"{op}: instance {i} has shape {x.shape} and dtype {x.dtype}, expected "
                f"instance_shape {instance_shape} and dtype {np.dtype(dtype)}"
            )
        out[i] = x
    return out.reshape(*outer, *instance_shape)


def generate(
    shape: Sequence[int],
    shape_list: Sequence[Sequence[int]],
    values: Sequence[float],
    dtype: np.dtype,
) -> np.ndarray:
    """``gen_tensor_buffer``: instance i filled with ``values[i]`` in ``shape_list[i]``."""
    return make([np.full(tuple(s), v, dtype) for s, v in zip(shape_list, values)], shape)


def to_list(
    value: Any, out_shape: Sequence[int], dtype: np.dtype, dynamic: bool, op: str
) -> tuple[np.ndarray, ...] | np.ndarray:
    """``tensor_buffer_to_list_of_tensors``: one array per instance. Without ``dynamic_out``
    an instance must hold ``out_shape``'s element count (it is reshaped to it); with it, an
    instance keeps its own shape, of ``out_shape``'s rank and no larger on any axis."""
    out_shape = tuple(out_shape)
    size = int(np.prod(out_shape, dtype=np.int64))
    result = []
    for i, x in enumerate(items(value)):
        x = np.asarray(x)
        if x.dtype != dtype:
            raise TensorBufferError(
                f"{op}: instance {i} has dtype {x.dtype}, expected {np.dtype(dtype)}"
            )
        if dynamic:
            if x.ndim != len(out_shape) or any(a > m for a, m in zip(x.shape, out_shape)):
                raise TensorBufferError(
                    f"{op}: instance {i} has shape {x.shape}, which does not fit within "
                    f"out_shape {out_shape}"
                )
            result.append(x)
        else:
            if x.size != size:
                raise TensorBufferError(
                    f"{op}: instance {i} has shape {x.shape} ({x.size} elements), expected "
                    f"out_shape {out_shape} ({size}); pass dynamic_out=True for smaller ones"
                )
            result.append(x.reshape(out_shape))
    # a feed op with one output returns its value itself, not a 1-tuple
    return tuple(result) if len(result) != 1 else result[0]


def from_list(value: TensorList) -> np.ndarray:
    """``tensor_list_to_tensor_buffer``: each tensor (first axis 1) becomes an instance."""
    out = []
    for i, t in enumerate(value.tensors):
        if t.shape[0] != 1:
            raise TensorBufferError(
                f"tensor_list_to_tensor_buffer: tensor {i} of the list has shape {t.shape}; "
                "each tensor must have 1 on its first axis (one instance)"
            )
        out.append(t[0])
    return make(out)


def to_tensor_list(value: Any, shape: Sequence[int], dtype: np.dtype, op: str) -> TensorList:
    """``tensor_buffer_to_tensor_list``: instance ``x`` becomes a tensor ``x[None]`` of
    ``dtype`` (converted), of ``shape``'s rank and at most its element count."""
    shape = tuple(shape)
    size = int(np.prod(shape, dtype=np.int64))
    out = []
    for i, x in enumerate(items(value)):
        x = np.asarray(x)
        if x.ndim != len(shape) or x.size > size:
            raise TensorBufferError(
                f"{op}: instance {i} has shape {x.shape}, which does not fit shape {shape} "
                "(same rank, no more elements)"
            )
        out.append(x.astype(dtype)[None])
    return TensorList(out)
