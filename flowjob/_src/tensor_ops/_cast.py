"""Conversions: ``cast`` (to a dtype) and ``to`` (to a device and/or a dtype), both recorded by
autograd: a cast between float types and a copy to another device pass gradients back."""

from __future__ import annotations

from typing import Any

import jax

from .. import _dtypes, ops
from ..graph import Blob
from ..imperative import Tensor, apply, device
from ..imperative._storage import jax_device
from ._checks import require_tensor


def _cast_body(x: Blob, *, dtype: _dtypes.DType) -> Blob:
    return ops.array_ops.cast(x, dtype)


def _copy_body(x: Blob) -> Blob:
    return ops.array_ops.identity(x)


def _dtype_arg(op: str, value: Any) -> _dtypes.DType:
    if isinstance(value, _dtypes.DType):
        return value
    raise TypeError(f"flow.{op}: dtype must be a flow dtype (flow.float32...), got {value!r}")


def cast(x: Any, dtype: _dtypes.DType) -> Any:
    """``x`` converted to ``dtype`` (a new tensor, even when the dtype is the same).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> y = flow.cast(flow.Tensor([1.7, -2.5]), flow.int8)
        >>> assert y.dtype == flow.int8 and y.numpy().tolist() == [1, -2]
    """
    require_tensor("cast", "x", x)
    dtype = _dtype_arg("cast", dtype)
    if isinstance(x, Tensor) and x.dtype == dtype:
        return apply("cast", _copy_body, x)
    return apply("cast", _cast_body, x, dtype=dtype)


def _moved(x: Tensor, where: device) -> Tensor:
    """A copy of ``x`` placed on ``where``; the copy op's autograd record stays with it."""
    out = apply("copy", _copy_body, x)
    array = jax.device_put(out.array, jax_device(where))
    return Tensor._wrap(array, grad_fn=out.grad_fn, output_index=out.output_index, where=where)


def _device_arg(value: Any) -> device:
    if isinstance(value, device):
        return value
    if isinstance(value, str):
        return device(value)
    raise TypeError(f"flow.to: device must be a flow.device or a string, got {value!r}")


def _parse(args: tuple, kwargs: dict) -> tuple[Any, Any, bool]:
    unknown = set(kwargs) - {"device", "dtype", "copy"}
    if unknown:
        raise TypeError(f"flow.to: unexpected keyword argument(s) {sorted(unknown)}")
    given: dict[str, Any] = {}
    if args and isinstance(args[0], Tensor):
        names = ("tensor", "copy")
    elif args and isinstance(args[0], _dtypes.DType):
        names = ("dtype", "copy")
    else:
        names = ("device", "dtype", "copy")
    if len(args) > len(names):
        raise TypeError(f"flow.to: at most {len(names)} positional arguments here, got {args!r}")
    given.update(zip(names, args))
    for name, value in kwargs.items():
        if name in given:
            raise TypeError(f"flow.to: {name} given both by position and by keyword")
        given[name] = value
    if "tensor" in given:
        given["device"], given["dtype"] = given["tensor"].device, given["tensor"].dtype
    where = given.get("device")
    dtype = given.get("dtype")
    if where is None and dtype is None:
        raise TypeError(
            "flow.to: expected a device, a dtype or a tensor to match, got "
            f"args={args!r}, kwargs={kwargs!r}"
        )
    where = None if where is None else _device_arg(where)
    dtype = None if dtype is None else _dtype_arg("to", dtype)
    return where, dtype, bool(given.get("copy", False))


def to(input: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A002 - OneFlow's name
    """``input`` on another device and/or of another dtype: ``to(device)``,
    ``to(dtype)``, ``to(device, dtype)``, ``to(other_tensor)`` (its device and dtype), each
    with an optional ``copy`` flag, or the keywords ``device=``, ``dtype=``, ``copy=``.
    Returns ``input`` itself when it already matches and ``copy`` is false.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> x = flow.Tensor([1.5, 2.5])
        >>> y = x.to("cuda", dtype=flow.int32)
        >>> assert y.device == flow.device("cuda") and y.dtype == flow.int32
        >>> assert x.to(flow.float32) is x
    """
    require_tensor("to", "input", input)
    where, dtype, copy = _parse(args, kwargs)
    out = input
    if isinstance(input, Blob):  # inside a job: the device is the job's placement
        return out if dtype is None else ops.array_ops.cast(out, dtype)
    if where is not None and (copy or where != input.device):
        out = _moved(out, where)
    if dtype is not None and (copy or dtype != input.dtype):
        out = cast(out, dtype)
    return out


METHODS = {"cast": cast, "to": to}
