"""More of OneFlow v0.4's op types onto flowjob's math and array ops (issue 46): elementwise,
comparison and reduction families, sorting, indexing, scattering and creation ops.

Every entry has OneFlow's registered argument and attribute names (checked against a OneFlow
clone by ``tests/parity_tables``) and calls the public op function that already implements
the op, so a built op and the public call give the same values.
"""

from __future__ import annotations

from typing import Any

from .. import _dtypes
from ..graph import Blob
from ..ops import _reduce, _unique, array_ops, math
from ._registry import OpCall, define

_UNARY = {  # registered "x" -> "y"
    "acosh": math.acosh,
    "asinh": math.asinh,
    "atanh": math.atanh,
    "erfc": math.erfc,
    "expm1": math.expm1,
    "lgamma": math.lgamma,
    "log1p": math.log1p,
    "log_sigmoid": math.log_sigmoid,
    "reciprocal_no_nan": math.reciprocal_no_nan,
    "rint": math.rint,
    "round": math.round,
    "softplus": math.softplus,
    "sigmoid_v2": math.sigmoid_v2,
}
_BINARY = {  # registered "x", "y" -> "z"
    "pow": math.pow,
    "atan2": math.atan2,
    "floordiv": math.floordiv,
    "xdivy": math.xdivy,
    "xlogy": math.xlogy,
    "elementwise_maximum": math.maximum,
    "elementwise_minimum": math.minimum,
    "broadcast_equal": math.equal,
    "broadcast_not_equal": math.not_equal,
    "broadcast_greater": math.greater,
    "broadcast_greater_equal": math.greater_equal,
    "broadcast_less": math.less,
    "broadcast_less_equal": math.less_equal,
    "broadcast_logical_and": math.logical_and,
    "broadcast_floor_mod": math.floor_mod,
}
_REDUCE = {  # registered "input_tensor" -> "output_tensor", attributes axis and keepdims
    "reduce_all": math.reduce_all,
    "reduce_any": math.reduce_any,
    "reduce_max": math.reduce_max,
    "reduce_min": math.reduce_min,
    "reduce_prod": math.reduce_prod,
    "reduce_sum": math.reduce_sum,
}
_BY_TENSOR = {  # "x", "scalar" (a one-element blob) -> "y"
    "scalar_add_by_tensor": math.add,
    "scalar_sub_by_tensor": math.subtract,
    "scalar_mul_by_tensor": math.multiply,
    "scalar_div_by_tensor": math.divide,
}


def _floating(x: Blob) -> bool:
    return x.dtype.is_floating


def _bound(c: OpCall, which: str) -> Any:
    """A clip bound: OneFlow stores it twice, the input's kind of number is the one used."""
    x = c.input("x")
    return (
        float(c.attrs[f"floating_{which}"]) if _floating(x) else int(c.attrs[f"integral_{which}"])
    )


def _clip(c: OpCall) -> Blob:
    low = _bound(c, "min") if "floating_min" in c.attrs else None
    high = _bound(c, "max") if "floating_max" in c.attrs else None
    return math.clip_by_value(c.input("x"), low, high, name=c.name)


def _tril(c: OpCall) -> Blob:
    a = c.attrs
    fill = a["floating_fill_value"] if a["is_floating_fill_value"] else a["integer_fill_value"]
    return math.tril(c.input("in"), int(a["diagonal"]), fill, name=c.name)


def _one_hot(c: OpCall) -> Blob:
    a = c.attrs
    dtype = _dtypes.as_dtype(a["dtype"])
    on, off = (
        (a["floating_on_value"], a["floating_off_value"])
        if dtype.is_floating
        else (a["integer_on_value"], a["integer_off_value"])
    )
    return array_ops.one_hot(c.input("indices"), int(a["depth"]), on, off, dtype=dtype, name=c.name)


def _l2_normalize(c: OpCall) -> dict[str, list[Blob]]:
    x, axis, eps = c.input("x"), int(c.attrs["axis"]), float(c.attrs["epsilon"])
    y = math.l2_normalize(x, axis=axis, epsilon=eps, name=c.name)
    square_sum = math.reduce_sum(math.square(x), axis=axis, keepdims=True)
    return {"y": [y], "square_x_sum": [square_sum]}


def _unique_with_counts(c: OpCall) -> dict[str, list[Blob]]:
    y, idx, count, num = _unique.unique_with_counts(
        c.input("x"), out_idx=c.attrs["out_idx"], name=c.name
    )
    return {"y": [y], "idx": [idx], "count": [count], "num_unique": [num]}


def _sort_kind(fn):
    def build(c: OpCall) -> Blob:
        return fn(c.input("in"), direction=c.attrs["direction"], name=c.name)

    return build


def _register() -> None:
    for op_type, fn in _UNARY.items():
        define(op_type, ["x"], ["y"], lambda c, fn=fn: fn(c.input("x"), name=c.name))
    for op_type, fn in _BINARY.items():
        define(
            op_type, ["x", "y"], ["z"], lambda c, fn=fn: fn(c.input("x"), c.input("y"), name=c.name)
        )
    for op_type, fn in _REDUCE.items():
        define(
            op_type,
            ["input_tensor"],
            ["output_tensor"],
            lambda c, fn=fn: fn(
                c.input("input_tensor"),
                list(c.attrs["axis"]),
                bool(c.attrs["keepdims"]),
                name=c.name,
            ),
            attrs={"axis": None, "keepdims": False},
        )
    for op_type, fn in _BY_TENSOR.items():
        define(
            op_type,
            ["x", "scalar"],
            ["y"],
            lambda c, fn=fn: fn(c.input("x"), c.input("scalar"), name=c.name),
        )
    define(
        "multiply",
        ["x", "y"],
        ["out"],
        lambda c: math.multiply(c.input("x"), c.input("y"), name=c.name),
    )
    bounds = {"floating_min": 0.0, "integral_min": 0, "floating_max": 0.0, "integral_max": 0}
    define("clip_by_scalar", ["x"], ["y"], _clip, attrs=bounds)
    define(
        "clip_by_scalar_min",
        ["x"],
        ["y"],
        _clip,
        attrs={k: v for k, v in bounds.items() if k.endswith("min")},
    )
    define(
        "clip_by_scalar_max",
        ["x"],
        ["y"],
        _clip,
        attrs={k: v for k, v in bounds.items() if k.endswith("max")},
    )
    define(
        "scalar_pow",
        ["in"],
        ["out"],
        lambda c: math.pow(c.input("in"), float(c.attrs["exponent"]), name=c.name),
        attrs={"exponent": None},
    )
    define("square_sum", ["x"], ["y"], lambda c: _reduce.square_sum(c.input("x"), name=c.name))
    define("argmax", ["in"], ["out"], lambda c: math.argmax(c.input("in"), name=c.name))
    define("arg_sort", ["in"], ["out"], _sort_kind(array_ops.argsort), attrs={"direction": None})
    define("sort", ["in"], ["out"], _sort_kind(array_ops.sort), attrs={"direction": None})
    define(
        "top_k",
        ["in"],
        ["out"],
        lambda c: math.top_k(
            c.input("in"), k=int(c.attrs["k"]), sorted=bool(c.attrs["sorted"]), name=c.name
        ),
        attrs={"k": None, "sorted": True},
    )
    define(
        "in_top_k",
        ["targets", "predictions"],
        ["out"],
        lambda c: math.in_top_k(
            c.input("targets"), c.input("predictions"), int(c.attrs["k"]), name=c.name
        ),
        attrs={"k": None},
    )
    define(
        "where",
        ["condition", "x", "y"],
        ["out"],
        lambda c: array_ops.where(c.input("condition"), c.input("x"), c.input("y"), name=c.name),
    )
    define(
        "zero_like", ["like"], ["out"], lambda c: array_ops.zeros_like(c.input("like"), name=c.name)
    )
    for op_type in ("amp_white_identity", "tuple_identity"):
        define(op_type, ["in"], ["out"], lambda c: array_ops.identity(c.input("in"), name=c.name))
    define(
        "cast_like",
        ["in", "dtype_like"],
        ["out"],
        lambda c: array_ops.cast(c.input("in"), c.input("dtype_like").dtype, name=c.name),
    )
    define(
        "diag",
        ["in"],
        ["out"],
        lambda c: array_ops.diag(c.input("in"), int(c.attrs["diagonal"]), name=c.name),
        attrs={"diagonal": 0},
    )
    define(
        "tril",
        ["in"],
        ["out"],
        _tril,
        attrs={
            "diagonal": None,
            "floating_fill_value": 0.0,
            "integer_fill_value": 0,
            "is_floating_fill_value": False,
        },
    )
    define(
        "range",
        [],
        ["out"],
        lambda c: array_ops.range(
            c.attrs["start"],
            c.attrs["limit"],
            c.attrs["delta"],
            dtype=c.attrs["dtype"],
            name=c.name,
        ),
        attrs={"start": None, "delta": None, "limit": None, "dtype": None},
    )
    define(
        "one_hot",
        ["indices"],
        ["out"],
        _one_hot,
        attrs={
            "depth": None,
            "floating_on_value": 1.0,
            "integer_on_value": 1,
            "floating_off_value": 0.0,
            "integer_off_value": 0,
            "dtype": None,
        },
    )
    define(
        "broadcast_like",
        ["x", "like"],
        ["y"],
        lambda c: array_ops.broadcast_like(
            c.input("x"), c.input("like"), list(c.attrs["broadcast_axes"]), name=c.name
        ),
        attrs={"broadcast_axes": None},
    )
    define(
        "reshape_like",
        ["in", "like"],
        ["out"],
        lambda c: array_ops.reshape_like(c.input("in"), c.input("like"), name=c.name),
    )
    define(
        "l2_normalize",
        ["x"],
        ["y", "square_x_sum"],
        _l2_normalize,
        attrs={"axis": None, "epsilon": None},
    )
    define(
        "unique_with_counts",
        ["x"],
        ["y", "idx", "count", "num_unique"],
        _unique_with_counts,
        attrs={"out_idx": _dtypes.int32},
    )


_register()
