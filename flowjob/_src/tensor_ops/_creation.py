"""Tensors made from a shape or another tensor's shape: ``ones``, ``zeros``, ``ones_like``,
``zeros_like`` and ``arange``, as OneFlow v0.4's experimental API spells them (each a
``constant``/``range`` op of flowjob's, run by ``imperative.apply``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import _dtypes, ops
from ..graph import Blob
from ..imperative import Tensor, apply
from ..imperative._factory import on_device

# OneFlow v0.4's constant op took these dtypes (integer value or floating value), no others.
_INTEGERS = ("int8", "int32", "int64", "uint8")
_FLOATS = ("float16", "float32", "float64")


def _size(who: str, size: Any) -> tuple[int, ...]:
    if isinstance(size, bool) or not isinstance(size, (int, tuple, list)):
        raise TypeError(f"flow.{who}: size must be an int or a tuple of ints, got {size!r}")
    dims = (size,) if isinstance(size, int) else tuple(size)
    if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in dims):
        raise ValueError(f"flow.{who}: size must hold non-negative ints, got {size!r}")
    return dims


def _constant_dtype(who: str, dtype: Any) -> _dtypes.DType:
    dt = _dtypes.float32 if dtype is None else _dtypes.as_dtype(dtype)
    if dt.name not in _INTEGERS + _FLOATS:
        raise TypeError(
            f"flow.{who}: dtype {dt.name} is not supported; expected one of "
            f"{', '.join(_INTEGERS + _FLOATS)}"
        )
    return dt


def _constant_body(*, value: float, shape: tuple[int, ...], dtype: _dtypes.DType) -> Blob:
    return ops.array_ops.constant(value, dtype=dtype, shape=shape)


def _filled(
    who: str, value: int, size: Any, dtype: Any, device: Any, requires_grad: bool
) -> Tensor:
    shape = _size(who, size)
    dt = _constant_dtype(who, dtype)
    out = apply(who, _constant_body, value=value, shape=shape, dtype=dt)
    out = on_device(out, device)
    out.requires_grad = bool(requires_grad)
    return out


def ones(
    size: int | Sequence[int],
    dtype: _dtypes.DType | None = None,
    *,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor of ones of shape ``size`` (an int or a tuple; dtype float32 by default).

    Examples:
        >>> import flowjob.experimental as flow
        >>> flow.ones(3)
        tensor([1., 1., 1.], dtype=oneflow.float32)
        >>> flow.ones((2, 1), dtype=flow.int32).shape
        flow.Size([2, 1])
    """
    return _filled("ones", 1, size, dtype, device, requires_grad)


def zeros(
    size: int | Sequence[int],
    dtype: _dtypes.DType | None = None,
    *,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor of zeros of shape ``size`` (an int or a tuple; dtype float32 by default).

    Examples:
        >>> import flowjob.experimental as flow
        >>> flow.zeros(2)
        tensor([0., 0.], dtype=oneflow.float32)
    """
    return _filled("zeros", 0, size, dtype, device, requires_grad)


def _like_body(like: Blob, *, value: int) -> Blob:
    return ops.array_ops.constant_like(like, value)


def _check_tensor(who: str, value: Any) -> None:
    if not isinstance(value, (Tensor, Blob)):
        raise TypeError(f"flow.{who}: expected a tensor, got {type(value).__name__}")


def ones_like(other: Tensor) -> Tensor:
    """Ones of ``other``'s shape, dtype and device.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> flow.ones_like(flow.Tensor(np.zeros((2, 2)), dtype=flow.int32))
        tensor([[1, 1],
                [1, 1]], dtype=oneflow.int32)
    """
    _check_tensor("ones_like", other)
    return apply("ones_like", _like_body, other, value=1)


def zeros_like(other: Tensor) -> Tensor:
    """Zeros of ``other``'s shape, dtype and device.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> flow.zeros_like(flow.Tensor(np.ones(3)))
        tensor([0., 0., 0.], dtype=oneflow.float32)
    """
    _check_tensor("zeros_like", other)
    return apply("zeros_like", _like_body, other, value=0)


def _range_body(*, start: int, limit: int, delta: int) -> Blob:
    return ops.array_ops.range(start, limit, delta, dtype=_dtypes.int64)


def _cast_body(x: Blob, *, dtype: _dtypes.DType) -> Blob:
    return ops.array_ops.cast(x, dtype)


def arange(
    start: int = 0,
    end: int | None = None,
    step: int = 1,
    dtype: _dtypes.DType | None = _dtypes.int64,
    device: Any = "cpu",
    requires_grad: bool = False,
) -> Tensor:
    """``start, start + step, ...`` below ``end`` (``arange(n)``: ``0 .. n-1``), int64 unless
    ``dtype`` says otherwise.

    Examples:
        >>> import flowjob.experimental as flow
        >>> flow.arange(0, 5)
        tensor([0, 1, 2, 3, 4], dtype=oneflow.int64)
        >>> flow.arange(1, 4, dtype=flow.float32).tolist()
        [1.0, 2.0, 3.0]
    """
    if end is None:
        start, end = 0, start
    for what, v in (("start", start), ("end", end), ("step", step)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"flow.arange: {what} must be an int, got {v!r}")
    if end <= start or step <= 0:
        raise ValueError(
            f"flow.arange: needs start < end and step > 0, got start={start}, end={end}, "
            f"step={step}"
        )
    out = apply("arange", _range_body, start=start, limit=end, delta=step)
    if dtype is not None and _dtypes.as_dtype(dtype) != out.dtype:
        out = apply("cast", _cast_body, out, dtype=_dtypes.as_dtype(dtype))
    out = on_device(out, device)
    out.requires_grad = bool(requires_grad)
    return out
