"""``flow.tensor_to_tensor_buffer``, ``tensor_buffer_to_tensor``, ``gen_tensor_buffer`` and
``tensor_buffer_to_list_of_tensors`` (OneFlow v0.4.0 signatures).

In the data pipeline (readers, decoders) they are feed ops on host tensor buffers
(``_buffers.py``). In the compiled program a tensor buffer can only hold instances of one
shape, so ``tensor_to_tensor_buffer`` of a job-body blob keeps the dense array (the op is
recorded, the value passes through) and only the ops that make it dense again accept it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _dtypes
from ..graph import Blob, OpKind, add_feed_op, apply_op, is_tensor_list
from . import _buffers
from ._op_args import _fail

_DENSE_BUFFER = "tensor_to_tensor_buffer"  # the op type marking a dense buffer in the program


def _in_pipeline(blob: Blob) -> bool:
    return blob.op.kind == OpKind.FEED


def is_tensor_buffer(blob: Blob) -> bool:
    """A pipeline tensor buffer, or a dense one made in the job body."""
    return blob.dtype is _dtypes.tensor_buffer or blob.op.op_type == _DENSE_BUFFER


def _check_blob(op: str, x: Any) -> Blob:
    if not isinstance(x, Blob):
        raise _fail(op, f"input must be a Blob, got {type(x).__name__}")
    return x


def tensor_to_tensor_buffer(x: Blob, instance_dims: int, name: str | None = None) -> Blob:
    """The last ``instance_dims`` axes of ``x`` become the instances of a tensor buffer of
    shape ``x.shape[:-instance_dims]``. On a job-body blob the dense array passes through:
    the result then reports ``x``'s full shape and only ``tensor_buffer_to_tensor`` and
    ``tensor_buffer_to_list_of_tensors`` take it."""
    op = "tensor_to_tensor_buffer"
    x = _check_blob(op, x)
    if not isinstance(instance_dims, int) or not 0 < instance_dims < x.ndim:
        raise _fail(
            op,
            f"instance_dims must be an int in [1, {x.ndim - 1}] for shape {x.shape}, "
            f"got {instance_dims!r}",
        )
    if x.dtype.np_dtype.kind == "O":
        raise _fail(op, f"input must be a numeric blob, got {x.dtype.name}")
    attrs = {"instance_dims": instance_dims}
    if not _in_pipeline(x):
        return apply_op(
            _DENSE_BUFFER, _identity, [x], attrs=attrs, name=name, prefix="TensorToTensorBuffer"
        )
    fn = functools.partial(_buffers.split, instance_dims=instance_dims)
    return add_feed_op(
        op,
        [x],
        fn,
        name=name,
        prefix="TensorToTensorBuffer",
        attrs=attrs,
        outputs=[(x.shape[: x.ndim - instance_dims], _dtypes.tensor_buffer, False)],
    )


def tensor_buffer_to_tensor(
    x: Blob, dtype: Any, instance_shape: Sequence[int], name: str | None = None
) -> Blob:
    """Stacks the instances (each exactly ``instance_shape`` of ``dtype``) into a tensor of
    shape ``x.shape + instance_shape``."""
    op = "tensor_buffer_to_tensor"
    x = _check_blob(op, x)
    dt = _dtypes.as_dtype(dtype)
    instance_shape = tuple(int(d) for d in instance_shape)
    attrs = {"dtype": dt.name, "instance_shape": instance_shape}
    if x.op.op_type == _DENSE_BUFFER:
        k = x.op.attrs["instance_dims"]
        have = x.shape[x.ndim - k :]
        if have != instance_shape or x.dtype is not dt:
            raise _fail(
                op,
                f"the buffer {x.lbn} holds instances of shape {have} and dtype "
                f"{x.dtype.name}, asked for instance_shape {instance_shape} and dtype {dt.name}",
            )
        return apply_op(op, _identity, [x], attrs=attrs, name=name, prefix="TensorBufferToTensor")
    if x.dtype is not _dtypes.tensor_buffer:
        raise _fail(op, f"input must be a tensor buffer, got {x.lbn} of dtype {x.dtype.name}")
    fn = functools.partial(
        _buffers.join, outer=x.shape, instance_shape=instance_shape, dtype=dt.np_dtype, op=op
    )
    return add_feed_op(
        op,
        [x],
        fn,
        name=name,
        prefix="TensorBufferToTensor",
        attrs=attrs,
        outputs=[((*x.shape, *instance_shape), dt, False)],
    )


def gen_tensor_buffer(
    shape: Sequence[int],
    shape_list: Sequence[Sequence[int]],
    value_list: Sequence[float],
    data_type: Any = _dtypes.float32,
    dynamic_out: bool = False,
    name: str | None = None,
) -> Blob:
    """A tensor buffer of ``shape`` (a pipeline source): instance i has ``shape_list[i]``,
    every element ``value_list[i]``, in ``data_type``. ``dynamic_out`` is recorded only
    (pipeline buffers carry their instances' shapes anyway)."""
    op = "gen_tensor_buffer"
    shape = tuple(int(d) for d in shape)
    count = int(np.prod(shape, dtype=np.int64))
    if len(shape_list) != count or len(value_list) != count:
        raise _fail(
            op,
            f"shape {shape} holds {count} instance(s), got {len(shape_list)} in "
            f"shape_list and {len(value_list)} in value_list",
        )
    dt = _dtypes.as_dtype(data_type)
    # fresh arrays every call: a returned instance may be changed by its receiver
    fn = functools.partial(
        _buffers.generate,
        shape,
        [tuple(s) for s in shape_list],
        [float(v) for v in value_list],
        dt.np_dtype,
    )
    attrs = {
        "shape": shape,
        "shape_list": [tuple(s) for s in shape_list],
        "value_list": [float(v) for v in value_list],
        "data_type": dt.name,
        "dynamic_out": dynamic_out,
    }
    return add_feed_op(
        op,
        [],
        lambda: fn,
        source=True,
        name=name,
        prefix="GenTensorBuffer",
        attrs=attrs,
        outputs=[(shape, _dtypes.tensor_buffer, False)],
    )


def tensor_buffer_to_list_of_tensors(
    x: Blob,
    out_shape: Sequence[int],
    out_dtype: Any,
    dynamic_out: bool = False,
    name: str | None = None,
) -> list[Blob]:
    """One blob per instance of ``x``, each of ``out_shape`` and ``out_dtype``. With
    ``dynamic_out`` the blobs are dynamic: each has its instance's own shape (no larger than
    ``out_shape``), as ``numpy_list()`` shows."""
    op = "tensor_buffer_to_list_of_tensors"
    x = _check_blob(op, x)
    dt = _dtypes.as_dtype(out_dtype)
    out_shape = tuple(int(d) for d in out_shape)
    attrs = {"out_shape": out_shape, "out_dtype": dt.name, "dynamic_out": dynamic_out}
    if x.op.op_type == _DENSE_BUFFER:
        k = x.op.attrs["instance_dims"]
        inner = x.shape[x.ndim - k :]
        if int(np.prod(inner)) != int(np.prod(out_shape)) or x.dtype is not dt:
            raise _fail(
                op,
                f"the buffer {x.lbn} holds instances of shape {inner} and dtype "
                f"{x.dtype.name}, which do not fit out_shape {out_shape} and dtype {dt.name}",
            )
        count = int(np.prod(x.shape[: x.ndim - k]))
        lowering = functools.partial(_unstack, count=count, out_shape=out_shape)
        outs = apply_op(
            op, lowering, [x], attrs=attrs, name=name, prefix="TensorBufferToListOfTensors"
        )
        return list(outs) if isinstance(outs, tuple) else [outs]
    if x.dtype is not _dtypes.tensor_buffer:
        raise _fail(op, f"input must be a tensor buffer, got {x.lbn} of dtype {x.dtype.name}")
    count = int(np.prod(x.shape, dtype=np.int64))
    if count < 1:
        raise _fail(op, f"the buffer {x.lbn} has no instances (shape {x.shape})")
    fn = functools.partial(
        _buffers.to_list, out_shape=out_shape, dtype=dt.np_dtype, dynamic=dynamic_out, op=op
    )
    outs = add_feed_op(
        op,
        [x],
        fn,
        name=name,
        prefix="TensorBufferToListOfTensors",
        attrs=attrs,
        outputs=[(out_shape, dt, dynamic_out)] * count,
    )
    return list(outs) if isinstance(outs, tuple) else [outs]


def tensor_list_to_tensor_buffer(input: Blob, name: str | None = None) -> Blob:  # noqa: A002
    """A tensor list (``tp.ListListNumpy`` argument) as a tensor buffer of ``(N,)``: each
    tensor, of first axis 1, becomes one instance (OneFlow v0.3's op, used by v0.4's image
    op examples)."""
    op = "tensor_list_to_tensor_buffer"
    x = _check_blob(op, input)
    if not is_tensor_list(x):
        raise _fail(op, f"input must be a tensor list (tp.ListListNumpy), got {x.lbn}")
    return add_feed_op(
        op,
        [x],
        _buffers.from_list,
        name=name,
        prefix="TensorListToBuffer",
        outputs=[((x.shape[0],), _dtypes.tensor_buffer, False)],
    )


def tensor_buffer_to_tensor_list(
    input: Blob,
    shape: Sequence[int],
    dtype: Any,
    name: str | None = None,  # noqa: A002
) -> Blob:
    """A tensor buffer as a tensor list of declared shape ``(N, *shape)``: instance ``x``
    becomes the tensor ``x[None]`` in ``dtype``; return it with ``-> tp.ListListNumpy``."""
    op = "tensor_buffer_to_tensor_list"
    x = _check_blob(op, input)
    if x.dtype is not _dtypes.tensor_buffer:
        raise _fail(op, f"input must be a tensor buffer, got {x.lbn} of dtype {x.dtype.name}")
    dt = _dtypes.as_dtype(dtype)
    shape = tuple(int(d) for d in shape)
    fn = functools.partial(_buffers.to_tensor_list, shape=shape, dtype=dt.np_dtype, op=op)
    return add_feed_op(
        op,
        [x],
        fn,
        name=name,
        prefix="TensorBufferToList",
        attrs={"shape": shape, "data_type": dt.name, "is_tensor_list": True},
        outputs=[((int(np.prod(x.shape)), *shape), dt, False)],
    )


def _identity(a: Any, **_: Any) -> Any:
    return a


def _unstack(a: Any, *, count: int, out_shape: tuple[int, ...], **_: Any) -> Any:
    flat = a.reshape(count, *out_shape)
    return tuple(flat[i] for i in range(count)) if count > 1 else flat[0]
