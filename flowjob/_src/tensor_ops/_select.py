"""Selecting elements by index or condition: ``gather`` (PyTorch's dim gather),
``masked_fill``, ``where`` and ``argwhere``, as OneFlow v0.4's experimental API and
``Tensor`` methods spell them, each a body of flowjob's ops run by ``imperative.apply``.

``argwhere``'s result size depends on the values: ``apply`` runs it op by op (a dynamic blob
cut to its real size), without autograd, which it would not have anyway (its output is
integer)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _dtypes, ops
from ..graph import Blob
from ..imperative import Tensor, apply


def _is_tensor(value: Any) -> bool:
    return isinstance(value, (Tensor, Blob))


def _require(who: str, what: str, value: Any) -> None:
    if not _is_tensor(value):
        raise TypeError(f"{who}: {what} must be a tensor, got {type(value).__name__}")


def _number(who: str, what: str, value: Any) -> float | int:
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:  # a NumPy scalar
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{who}: {what} must be a tensor or a number, got {value!r}")
    return value


def _gather_body(x: Blob, index: Blob, *, dim: int) -> Blob:
    return ops.array_ops.dim_gather(x, dim, index)


def gather(input: Tensor, index: Tensor, dim: int = 0, sparse_grad: bool = False) -> Tensor:  # noqa: A002
    """``out[i][j][k] = input[index[i][j][k]][j][k]`` for ``dim=0`` (and likewise for the
    other axes): ``index`` (integers) has ``input``'s rank and is no larger on the other
    axes; the result has ``index``'s shape. The gradient adds into the gathered places.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> x = flow.Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
        >>> i = flow.Tensor(np.array([[0, 0], [1, 0]]), dtype=flow.int32)
        >>> flow.gather(x, i, dim=1).tolist()
        [[1.0, 1.0], [4.0, 3.0]]
    """
    _require("flow.gather", "input", input)
    _require("flow.gather", "index", index)
    if sparse_grad:
        raise NotImplementedError("flow.gather: sparse_grad=True is not supported (OneFlow v0.4)")
    if isinstance(dim, bool) or not isinstance(dim, int) or not -input.ndim <= dim < input.ndim:
        raise IndexError(f"flow.gather: dim={dim!r} is out of range for a {input.ndim}-d input")
    return apply("gather", _gather_body, input, index, dim=dim % input.ndim)


def _masked_fill_body(x: Blob, mask: Blob, *, value: Any) -> Blob:
    return ops.array_ops.masked_fill(x, mask, value)


def masked_fill(tensor: Tensor, mask: Tensor, value: float) -> Tensor:
    """``tensor`` with ``value`` where ``mask`` (broadcastable to it) is nonzero.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> x = flow.Tensor(np.array([-1.0, 2.0, -3.0], np.float32))
        >>> mask = flow.Tensor(np.array([0, 1, 0]), dtype=flow.int8)
        >>> x.masked_fill(mask, value=9.0).tolist()
        [-1.0, 9.0, -3.0]
    """
    _require("flow.masked_fill", "tensor", tensor)
    _require("flow.masked_fill", "mask", mask)
    value = _number("flow.masked_fill", "value", value)
    return apply("masked_fill", _masked_fill_body, tensor, mask, value=value)


def _where_body(condition: Blob, *operands: Blob, x: Any, y: Any) -> Blob:
    # ``x``/``y`` are numbers (attributes) or None, when they are the tensors in ``operands``
    rest = list(operands)
    xs = rest.pop(0) if x is None else x
    ys = rest.pop(0) if y is None else y
    return ops.array_ops.where(condition, xs, ys)


def where(condition: Tensor, x: Any, y: Any) -> Tensor:
    """Elements of ``x`` where ``condition`` is nonzero, else of ``y``; the three broadcast
    together. ``x`` or ``y`` may be a number (a float32 constant when both are numbers).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> c = flow.Tensor(np.array([1, 0, 1]), dtype=flow.int32)
        >>> x = flow.Tensor(np.array([1.0, 2.0, 3.0], np.float32))
        >>> flow.where(c, x, 0.5).tolist()
        [1.0, 0.5, 3.0]
        >>> c.where(x, x * 10).tolist()
        [1.0, 20.0, 3.0]
    """
    _require("flow.where", "condition", condition)
    tensors = [v for v in (x, y) if _is_tensor(v)]
    x_attr = None if _is_tensor(x) else _number("flow.where", "x", x)
    y_attr = None if _is_tensor(y) else _number("flow.where", "y", y)
    if not tensors:  # OneFlow v0.4 made both numbers float32 tensors (not weak floats)
        x_attr, y_attr = np.float32(x_attr), np.float32(y_attr)
    return apply("where", _where_body, condition, *tensors, x=x_attr, y=y_attr)


def _argwhere_body(x: Blob, *, dtype: _dtypes.DType) -> Blob:
    return ops.array_ops.argwhere(x, dtype=dtype)


def argwhere(x: Tensor, dtype: _dtypes.DType | None = None) -> Tensor:
    """The coordinates of ``x``'s nonzero elements, one row each in row-major order: shape
    ``(count, ndim)``, dtype int32 unless ``dtype`` says otherwise.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> x = flow.Tensor(np.array([[0, 1, 0], [2, 0, 2]], np.float32))
        >>> flow.argwhere(x).tolist()
        [[0, 1], [1, 0], [1, 2]]
    """
    _require("flow.argwhere", "x", x)
    dt = _dtypes.int32 if dtype is None else _dtypes.as_dtype(dtype)
    return apply("argwhere", _argwhere_body, x, dtype=dt)


METHODS = {
    "gather": gather,
    "masked_fill": masked_fill,
    "where": where,
    "argwhere": argwhere,
}
