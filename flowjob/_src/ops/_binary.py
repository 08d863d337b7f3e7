"""Elementwise binary ops with broadcasting: arithmetic, comparisons, maximum/minimum, and
the float-only math ``atan2``, ``floordiv``, ``xdivy``, ``xlogy``.

Either operand of the arithmetic ops may be a Python/NumPy constant; it becomes an attribute
of the op, never an input. Automatic names follow OneFlow: ``ScalarAdd_<n>`` for a constant
operand, ``AddN_<n>`` and ``ElementWiseMul_<n>`` for equal shapes, ``broadcast_add_<n>``
otherwise; the float-only math ops are ``<op>_<n>``.

OneFlow requires equal shapes for the float-only math; flowjob also broadcasts. Their
gradients follow OneFlow's kernels: ``floordiv`` has none (zero), and ``xdivy``/``xlogy`` give
0 for both operands where ``x == 0`` (no NaN from ``y == 0`` there).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
from jax import lax

from ..graph import Blob, apply_op
from ..graph._real_shape import ELEMENTWISE, RealShape, broadcasting
from ._unary import square
from ._util import (
    as_constant,
    broadcast_shape,
    check_name,
    const_shape,
    fail,
    is_constant,
    require_blob,
)

Operand = Any  # Blob | int | float | np.ndarray


def _true_div(a, b):
    dtype = jnp.result_type(a, b)
    if jnp.issubdtype(dtype, jnp.integer):
        # OneFlow divides integers like C: truncation toward zero
        a, b = jnp.broadcast_arrays(jnp.asarray(a, dtype), jnp.asarray(b, dtype))
        return lax.div(a, b)
    return jnp.true_divide(a, b)


def _as_int8(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def compare(a, b):
        return fn(a, b).astype(jnp.int8)

    return compare


def _lower_pair(a, b, *, fn):
    return fn(a, b)


def _lower_const(x, *, fn, operand, reverse):
    return fn(operand, x) if reverse else fn(x, operand)


# name -> (jax function, automatic name prefix by operand kind)
_KINDS: dict[str, tuple[Callable[..., Any], dict[str, str | None]]] = {
    "add": (
        jnp.add,
        {
            "scalar": "ScalarAdd",
            "same": "AddN",
            "by_tensor": "ScalarAddByTensor",
            "broadcast": "broadcast_add",
        },
    ),
    "subtract": (
        jnp.subtract,
        {
            "scalar": "ScalarAdd",
            "same": "broadcast_sub",
            "by_tensor": "ScalarSubByTensor",
            "broadcast": "broadcast_sub",
        },
    ),
    "multiply": (
        jnp.multiply,
        {
            "scalar": "ScalarMul",
            "same": "ElementWiseMul",
            "by_tensor": "ScalarMulByTensor",
            "broadcast": "broadcast_mul",
        },
    ),
    "divide": (
        _true_div,
        {
            "scalar": "ScalarMul",
            "same": "broadcast_div",
            "by_tensor": "ScalarDivByTensor",
            "broadcast": "broadcast_div",
        },
    ),
    "pow": (
        jnp.power,
        {"scalar": "ScalarPow", "same": "Pow", "by_tensor": None, "broadcast": "broadcast_pow"},
    ),
    "mod": (
        jnp.mod,
        {
            "scalar": "ScalarFloorMod",
            "same": "broadcast_floor_mod",
            "by_tensor": None,
            "broadcast": "broadcast_floor_mod",
        },
    ),
    "maximum": (
        jnp.maximum,
        {
            "scalar": "ScalarMaximum",
            "same": "ElementWiseMaximum",
            "by_tensor": None,
            "broadcast": "broadcast_maximum",
        },
    ),
    "minimum": (
        jnp.minimum,
        {
            "scalar": "ScalarMinimum",
            "same": "ElementWiseMinimum",
            "by_tensor": None,
            "broadcast": "broadcast_minimum",
        },
    ),
}


for _cmp, _fn in (
    ("equal", jnp.equal),
    ("not_equal", jnp.not_equal),
    ("less", jnp.less),
    ("less_equal", jnp.less_equal),
    ("greater", jnp.greater),
    ("greater_equal", jnp.greater_equal),
    ("logical_and", jnp.logical_and),
):
    _KINDS[_cmp] = (
        _as_int8(_fn),
        {
            "scalar": f"scalar_{_cmp}",
            "same": f"broadcast_{_cmp}",
            "by_tensor": None,
            "broadcast": f"broadcast_{_cmp}",
        },
    )


def binary(kind: str, x: Operand, y: Operand, name: str | None = None) -> Blob:
    """Records the elementwise op ``kind`` on ``x`` and ``y`` (blobs or constants)."""
    public = f"flow.math.{kind}"
    name = check_name(public, name)
    fn, prefixes = _KINDS[kind]
    x_blob, y_blob = isinstance(x, Blob), isinstance(y, Blob)
    if not x_blob and not y_blob:
        fail(
            public,
            f"needs at least one blob operand, got {type(x).__name__} and {type(y).__name__}",
            name,
        )
    for v in (x, y):
        if not isinstance(v, Blob) and not is_constant(v):
            fail(
                public,
                f"operands must be blobs or numeric constants, got {type(v).__name__}: {v!r}",
                name,
            )
    if x_blob and y_blob:
        out = broadcast_shape(public, [x.shape, y.shape], name)
        if x.shape == y.shape:
            prefix = prefixes["same"]
        elif prefixes["by_tensor"] and y.shape == (1,):
            prefix = prefixes["by_tensor"]
        else:
            prefix = prefixes["broadcast"]
        lowering = functools.partial(_lower_pair, fn=fn)
        return apply_op(
            f"{kind}",
            lowering,
            [x, y],
            name=name,
            prefix=prefix,
            real_shape=_real_shape(lowering, [x, y], out),
        )
    blob, const, reverse = (x, y, False) if x_blob else (y, x, True)
    operand = as_constant(public, const, blob.dtype, name)
    out = broadcast_shape(public, [blob.shape, const_shape(operand)], name)
    lowering = functools.partial(_lower_const, fn=fn)
    return apply_op(
        f"scalar_{kind}",
        lowering,
        [blob],
        attrs={"operand": operand, "reverse": reverse},
        name=name,
        prefix=prefixes["scalar"],
        real_shape=_real_shape(lowering, [blob], out),
    )


def _real_shape(lowering, blobs: list[Blob], out: tuple[int, ...]) -> RealShape:
    """Dynamic inputs of the output's padded shape share its real shape (elementwise);
    one that broadcasts at padded shapes broadcasts at real shapes too (OneFlow's
    ``broadcast_*`` kernels), a real size-1 axis included."""
    if all(b.shape == out for b in blobs if b.is_dynamic):
        return ELEMENTWISE
    return broadcasting(lowering)


def add(x: Operand, y: Operand, name: str | None = None) -> Blob:
    """``x + y`` elementwise with broadcasting."""
    return binary("add", x, y, name)


def subtract(x: Operand, y: Operand, name: str | None = None) -> Blob:
    """``x - y`` elementwise with broadcasting."""
    return binary("subtract", x, y, name)


def multiply(x: Operand, y: Operand, name: str | None = None) -> Blob:
    """``x * y`` elementwise with broadcasting."""
    return binary("multiply", x, y, name)


def divide(x: Operand, y: Operand, name: str | None = None) -> Blob:
    """``x / y`` elementwise with broadcasting (integers truncate toward zero)."""
    return binary("divide", x, y, name)


def pow(x: Operand, y: Operand, name: str | None = None) -> Blob:  # noqa: A001 - OneFlow's name
    """``x ** y`` elementwise with broadcasting."""
    return binary("pow", x, y, name)


def floor_mod(x: Operand, y: Operand, name: str | None = None) -> Blob:
    """``x mod y`` with the sign of ``y`` (floor modulo), with broadcasting."""
    return binary("mod", x, y, name)


def maximum(x: Operand, y: Operand, name: str | None = None) -> Blob:
    """Elementwise maximum with broadcasting."""
    return binary("maximum", x, y, name)


def minimum(x: Operand, y: Operand, name: str | None = None) -> Blob:
    """Elementwise minimum with broadcasting."""
    return binary("minimum", x, y, name)


def equal(x: Operand, y: Operand, name: str | None = None) -> Blob:
    """``x == y`` as int8 (1/0), with broadcasting."""
    return binary("equal", x, y, name)


def not_equal(x: Operand, y: Operand, name: str | None = None) -> Blob:
    """``x != y`` as int8 (1/0), with broadcasting."""
    return binary("not_equal", x, y, name)


def less(x: Operand, y: Operand, name: str | None = None) -> Blob:
    """``x < y`` as int8 (1/0), with broadcasting."""
    return binary("less", x, y, name)


def less_equal(x: Operand, y: Operand, name: str | None = None) -> Blob:
    """``x <= y`` as int8 (1/0), with broadcasting."""
    return binary("less_equal", x, y, name)


def greater(x: Operand, y: Operand, name: str | None = None) -> Blob:
    """``x > y`` as int8 (1/0), with broadcasting."""
    return binary("greater", x, y, name)


def greater_equal(x: Operand, y: Operand, name: str | None = None) -> Blob:
    """``x >= y`` as int8 (1/0), with broadcasting."""
    return binary("greater_equal", x, y, name)


def logical_and(x: Operand, y: Operand, name: str | None = None) -> Blob:
    """``x and y`` (nonzero is true) as int8 (1/0), with broadcasting."""
    return binary("logical_and", x, y, name)


def squared_difference(x: Operand, y: Operand, name: str | None = None) -> Blob:
    """``(x - y) ** 2`` elementwise (two ops, as OneFlow)."""
    diff = subtract(x, y, None if name is None else name + "_subtract")
    return square(diff, None if name is None else name + "_square")


def _binary(kind: str, fn, x: Blob, y: Blob, name: str | None) -> Blob:
    public = f"flow.math.{kind}"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    require_blob(public, y, "y", name)
    if x.dtype != y.dtype or not x.dtype.is_floating:
        fail(
            public,
            f"x and y must have one floating point dtype, got {x.dtype.name} and {y.dtype.name}",
            name,
        )
    out = broadcast_shape(public, [x.shape, y.shape], name)
    lowering = functools.partial(_lower_pair, fn=fn)
    real = _real_shape(lowering, [x, y], out)
    return apply_op(kind, lowering, [x, y], name=name, prefix=kind, real_shape=real)


def atan2(x: Blob, y: Blob, name: str | None = None) -> Blob:
    """``arctan(x / y)`` in the quadrant of the point ``(y, x)`` (as ``np.arctan2(x, y)``)."""
    return _binary("atan2", jnp.arctan2, x, y, name)


def _floordiv(x, y):
    return jnp.floor(x / y)


def floordiv(x: Blob, y: Blob, name: str | None = None) -> Blob:
    """``floor(x / y)``; zero gradient."""
    return _binary("floordiv", _floordiv, x, y, name)


def _safe_y(x, y):
    return jnp.where(x == 0, jnp.ones((), y.dtype), y)


def _xdivy(x, y):
    zero = jnp.zeros((), jnp.result_type(x, y))
    return jnp.where(x == 0, zero, x / _safe_y(x, y))


def xdivy(x: Blob, y: Blob, name: str | None = None) -> Blob:
    """``x / y``, but 0 where ``x`` is 0."""
    return _binary("xdivy", _xdivy, x, y, name)


def _xlogy(x, y):
    zero = jnp.zeros((), jnp.result_type(x, y))
    return jnp.where(x == 0, zero, x * jnp.log(_safe_y(x, y)))


def xlogy(x: Blob, y: Blob, name: str | None = None) -> Blob:
    """``x * log(y)``, but 0 where ``x`` is 0."""
    return _binary("xlogy", _xlogy, x, y, name)
