"""Arithmetic on tensors: ``add``, ``sub``, ``mul``, ``div``, ``pow``, ``negative`` and the
Python operators, each a body of flowjob's binary ops (broadcasting, as OneFlow's
``broadcast_*`` ops). A Python number operand is an attribute of the op (a scalar op), not a
tensor, as OneFlow's ``scalar_add``/``scalar_mul``/``scalar_pow`` were."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from ..graph import Blob
from ..imperative import Tensor, apply
from ._checks import is_operand, number, require_tensor

_BINARY = {
    "add": ops.math.add,
    "sub": ops.math.subtract,
    "mul": ops.math.multiply,
    "div": ops.math.divide,
    "pow": ops.math.pow,
}


def _binary_body(a: Blob, b: Blob, *, kind: str) -> Blob:
    return _BINARY[kind](a, b)


def _scalar_body(a: Blob, *, kind: str, scalar: Any, reverse: bool) -> Blob:
    fn = _BINARY[kind]
    return fn(scalar, a) if reverse else fn(a, scalar)


def _scalar_operand(kind: str, tensor: Any, value: Any) -> Tensor | None:
    """A number beside a float tensor as a 0-d tensor of its dtype: the program then takes it
    as an input, so ``x * lr`` compiles once whatever ``lr`` is (as an attribute, each new
    number was a new program). Exactly what a scalar op on a float tensor computes; integer
    tensors and ``pow`` (``x ** 2`` is an exact square there) keep the scalar op."""
    if kind == "pow" or not isinstance(tensor, Tensor) or not tensor.dtype.is_floating:
        return None
    value = number(kind, value)
    return Tensor._wrap(np.asarray(value, tensor.dtype.np_dtype), where=tensor.device)


def binary(kind: str, x: Any, y: Any) -> Any:
    """``x <kind> y`` for tensors (or blobs) and Python numbers."""
    if is_operand(x) and is_operand(y):
        return apply(kind, _binary_body, x, y, kind=kind)
    if is_operand(x) and (s := _scalar_operand(kind, x, y)) is not None:
        return apply(kind, _binary_body, x, s, kind=kind)
    if is_operand(y) and (s := _scalar_operand(kind, y, x)) is not None:
        return apply(kind, _binary_body, s, y, kind=kind)
    if is_operand(x):
        return apply(kind, _scalar_body, x, kind=kind, scalar=number(kind, y), reverse=False)
    if is_operand(y):
        return apply(kind, _scalar_body, y, kind=kind, scalar=number(kind, x), reverse=True)
    raise TypeError(
        f"flow.{kind}: expected a tensor operand, got {type(x).__name__} and {type(y).__name__}"
    )


def add(x: Any, y: Any) -> Any:
    """``x + y`` elementwise with broadcasting (either may be a number).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> y = flow.add(flow.Tensor(np.array([1.0, 2.0])), 1)
        >>> assert np.allclose(y.numpy(), [2.0, 3.0])
    """
    return binary("add", x, y)


def sub(x: Any, y: Any) -> Any:
    """``x - y`` elementwise with broadcasting (either may be a number).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> y = flow.sub(5, flow.Tensor(np.array([1.0, 2.0])))
        >>> assert np.allclose(y.numpy(), [4.0, 3.0])
    """
    return binary("sub", x, y)


def mul(x: Any, y: Any) -> Any:
    """``x * y`` elementwise with broadcasting (either may be a number).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> y = flow.mul(flow.Tensor(np.ones((2, 1))), flow.Tensor(np.array([[1.0, 2.0]])))
        >>> assert y.shape == (2, 2)
    """
    return binary("mul", x, y)


def div(x: Any, y: Any) -> Any:
    """``x / y`` elementwise with broadcasting (either may be a number).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> y = flow.div(flow.Tensor(np.array([1.0, 3.0])), 2)
        >>> assert np.allclose(y.numpy(), [0.5, 1.5])
    """
    return binary("div", x, y)


def pow(tensor: Any, exponent: Any) -> Any:  # noqa: A001 - OneFlow's name
    """``tensor ** exponent`` elementwise; ``exponent`` is a tensor (broadcast) or a number
    (OneFlow's ``scalar_pow``).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> y = flow.pow(flow.Tensor(np.array([1.0, 2.0, 3.0])), 2)
        >>> assert np.allclose(y.numpy(), [1.0, 4.0, 9.0])
    """
    return binary("pow", tensor, exponent)


def _negative_body(a: Blob) -> Blob:
    return ops.math.negative(a)


def negative(x: Any) -> Any:
    """``-x`` elementwise (also ``flow.neg`` and the unary ``-`` operator).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> y = flow.neg(flow.Tensor(np.array([1.0, -2.0])))
        >>> assert np.allclose(y.numpy(), [-1.0, 2.0])
    """
    return apply("negative", _negative_body, require_tensor("negative", "x", x))


neg = negative

# OneFlow v0.4's Tensor defined the arithmetic operators (``__pow__`` is flowjob's addition).
OPERATORS = {
    "__add__": lambda s, o: add(s, o),
    "__radd__": lambda s, o: add(o, s),
    "__sub__": lambda s, o: sub(s, o),
    "__rsub__": lambda s, o: sub(o, s),
    "__mul__": lambda s, o: mul(s, o),
    "__rmul__": lambda s, o: mul(o, s),
    "__truediv__": lambda s, o: div(s, o),
    "__rtruediv__": lambda s, o: div(o, s),
    "__pow__": lambda s, o: pow(s, o),
    "__rpow__": lambda s, o: pow(o, s),
    "__neg__": lambda s: negative(s),
}
METHODS = {
    "add": add,
    "sub": sub,
    "mul": mul,
    "div": div,
    "pow": pow,
    "negative": negative,
    "neg": negative,
}
