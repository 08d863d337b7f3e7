"""Elementwise math of one tensor: ``abs``, ``exp``, ``log``, ``sqrt``, ``rsqrt``, ``square``,
``reciprocal`` (OneFlow's ``reciprocal_no_nan``: 0 where the input is 0), ``sin``, ``cos``,
``cosh``, ``asin``/``arcsin``, ``asinh``/``arcsinh``; each is one of flowjob's unary ops.

The parameter names are OneFlow v0.4's, which differ from function to function (``x``,
``input``, ``tensor``), so keyword calls written for it (``flow.sqrt(input=x)``) work."""

from __future__ import annotations

from typing import Any

from .. import ops
from ..graph import Blob
from ..imperative import apply
from ._checks import require_tensor

_UNARY = {
    "abs": ops.math.abs,
    "exp": ops.math.exp,
    "log": ops.math.log,
    "sqrt": ops.math.sqrt,
    "rsqrt": ops.math.rsqrt,
    "square": ops.math.square,
    "reciprocal": ops.math.reciprocal_no_nan,
    "sin": ops.math.sin,
    "cos": ops.math.cos,
    "cosh": ops.math.cosh,
    "asin": ops.math.asin,
    "asinh": ops.math.asinh,
}


def _unary_body(x: Blob, *, kind: str) -> Blob:
    return _UNARY[kind](x)


def _unary(kind: str, arg: str, value: Any) -> Any:
    return apply(kind, _unary_body, require_tensor(kind, arg, value), kind=kind)


def abs(x: Any) -> Any:  # noqa: A001 - OneFlow's name
    """``|x|`` elementwise (also the ``abs()`` builtin on a tensor).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> assert np.allclose(flow.abs(flow.Tensor(np.array([-1.0, 2.0]))).numpy(), [1.0, 2.0])
    """
    return _unary("abs", "x", x)


def exp(x: Any) -> Any:
    """``e ** x`` elementwise.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> assert np.allclose(flow.exp(flow.Tensor(np.array([0.0, 1.0]))).numpy(), [1.0, np.e])
    """
    return _unary("exp", "x", x)


def log(tensor: Any) -> Any:
    """The natural logarithm elementwise (NaN for negative values).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> assert np.allclose(flow.log(flow.Tensor(np.array([1.0, np.e]))).numpy(), [0.0, 1.0])
    """
    return _unary("log", "tensor", tensor)


def sqrt(input: Any) -> Any:  # noqa: A002 - OneFlow's name
    """The square root elementwise (NaN for negative values).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> assert np.allclose(flow.sqrt(flow.Tensor(np.array([4.0, 9.0]))).numpy(), [2.0, 3.0])
    """
    return _unary("sqrt", "input", input)


def rsqrt(input: Any) -> Any:  # noqa: A002 - OneFlow's name
    """``1 / sqrt(input)`` elementwise.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> assert np.allclose(flow.rsqrt(flow.Tensor(np.array([4.0]))).numpy(), [0.5])
    """
    return _unary("rsqrt", "input", input)


def square(input: Any) -> Any:  # noqa: A002 - OneFlow's name
    """``input * input`` elementwise.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> assert np.allclose(flow.square(flow.Tensor(np.array([-3.0]))).numpy(), [9.0])
    """
    return _unary("square", "input", input)


def reciprocal(x: Any) -> Any:
    """``1 / x`` elementwise, and 0 where ``x`` is 0 (OneFlow's ``reciprocal_no_nan``).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> y = flow.reciprocal(flow.Tensor(np.array([2.0, 0.0])))
        >>> assert np.allclose(y.numpy(), [0.5, 0.0])
    """
    return _unary("reciprocal", "x", x)


def sin(tensor: Any) -> Any:
    """The sine elementwise.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> assert np.allclose(flow.sin(flow.Tensor(np.array([0.0]))).numpy(), [0.0])
    """
    return _unary("sin", "tensor", tensor)


def cos(tensor: Any) -> Any:
    """The cosine elementwise.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> assert np.allclose(flow.cos(flow.Tensor(np.array([0.0]))).numpy(), [1.0])
    """
    return _unary("cos", "tensor", tensor)


def cosh(tensor: Any) -> Any:
    """The hyperbolic cosine elementwise.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> assert np.allclose(flow.cosh(flow.Tensor(np.array([0.0]))).numpy(), [1.0])
    """
    return _unary("cosh", "tensor", tensor)


def asin(input: Any) -> Any:  # noqa: A002 - OneFlow's name
    """The arcsine elementwise, in ``[-pi/2, pi/2]`` (NaN outside ``[-1, 1]``); also
    ``flow.arcsin``.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> assert np.allclose(flow.asin(flow.Tensor(np.array([1.0]))).numpy(), [np.pi / 2])
    """
    return _unary("asin", "input", input)


def asinh(input: Any) -> Any:  # noqa: A002 - OneFlow's name
    """The inverse hyperbolic sine elementwise; also ``flow.arcsinh``.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> assert np.allclose(flow.asinh(flow.Tensor(np.array([0.0]))).numpy(), [0.0])
    """
    return _unary("asinh", "input", input)


arcsin = asin
arcsinh = asinh

OPERATORS = {"__abs__": abs}
METHODS = {
    "abs": abs,
    "exp": exp,
    "log": log,
    "sqrt": sqrt,
    "rsqrt": rsqrt,
    "square": square,
    "reciprocal": reciprocal,
    "sin": sin,
    "cos": cos,
    "cosh": cosh,
    "asin": asin,
    "arcsin": asin,
    "asinh": asinh,
    "arcsinh": asinh,
}
