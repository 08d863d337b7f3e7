"""ONNX conversions of flowjob's elementwise op types (activations, arithmetic, comparisons).

Formulas follow the ops' JAX lowerings, not OneFlow's kernels.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from onnx import helper

from ..graph import OpNode
from ._onnx_graph import OnnxGraph, onnx_type, out_dtype, register, scalar

# -- elementwise ----------------------------------------------------------------------------
_SIMPLE_UNARY = {
    "relu": "Relu",
    "sigmoid": "Sigmoid",
    "tanh": "Tanh",
    "exp": "Exp",
    "log": "Log",
    "sqrt": "Sqrt",
    "abs": "Abs",
    "negative": "Neg",
    "reciprocal": "Reciprocal",
    "floor": "Floor",
    "ceil": "Ceil",
    "round": "Round",
    "sin": "Sin",
    "cos": "Cos",
    "sign": "Sign",
    "softplus": "Softplus",
    "identity": "Identity",
    "tuple_identity": "Identity",
    "with_distribute": "Identity",
    "parallel_cast": "Identity",
    "amp_white_identity": "Identity",
}


@register(*_SIMPLE_UNARY)
def _unary(g: OnnxGraph, op: OpNode, x: list[str]) -> Any:
    if len(x) > 1:  # identity_n: one output per input
        return [g.node("Identity", [v], op.name) for v in x]
    if op.op_type == "round" and g.opset < 11:
        return None
    return g.node(_SIMPLE_UNARY[op.op_type], x, op.name)


@register("rsqrt")
def _rsqrt(g, op, x):
    return g.node("Reciprocal", [g.node("Sqrt", x, op.name)], op.name)


@register("square")
def _square(g, op, x):
    return g.node("Mul", [x[0], x[0]], op.name)


@register("log1p")
def _log1p(g, op, x):
    one = scalar(g, 1, out_dtype(op), f"{op.name}/one")
    return g.node("Log", [g.node("Add", [x[0], one], op.name)], op.name)


@register("gelu")
def _gelu(g, op, x):
    dt = out_dtype(op)
    scaled = g.node("Mul", [x[0], scalar(g, 1 / np.sqrt(2), dt, f"{op.name}/rsqrt2")], op.name)
    erf1 = g.node(
        "Add", [g.node("Erf", [scaled], op.name), scalar(g, 1, dt, f"{op.name}/1")], op.name
    )
    half = g.node("Mul", [x[0], scalar(g, 0.5, dt, f"{op.name}/half")], op.name)
    return g.node("Mul", [half, erf1], op.name)


@register("leaky_relu")
def _leaky_relu(g, op, x):
    return g.node("LeakyRelu", x, op.name, alpha=float(op.attrs["alpha"]))


@register("elu")
def _elu(g, op, x):
    return g.node("Elu", x, op.name, alpha=float(op.attrs["alpha"]))


@register("hardtanh")
def _hardtanh(g, op, x):
    return clip(g, op, x[0], op.attrs["min_val"], op.attrs["max_val"])


def clip(g: OnnxGraph, op: OpNode, x: str, lo: float | None, hi: float | None) -> str:
    """Clip takes its bounds as inputs from opset 11, as attributes before."""
    if g.opset < 11:
        bounds = {k: float(v) for k, v in (("min", lo), ("max", hi)) if v is not None}
        return g.node("Clip", [x], op.name, **bounds)
    dt = out_dtype(op)
    return g.node(
        "Clip",
        [
            x,
            "" if lo is None else scalar(g, lo, dt, f"{op.name}/lo"),
            "" if hi is None else scalar(g, hi, dt, f"{op.name}/hi"),
        ],
        op.name,
    )


@register("clip_by_scalar")
def _clip(g, op, x):
    return clip(g, op, x[0], op.attrs["lo"], op.attrs["hi"])


@register("hardsigmoid")
def _hardsigmoid(g, op, x):
    return g.node("HardSigmoid", x, op.name, alpha=1 / 6, beta=0.5)


@register("hardswish")
def _hardswish(g, op, x):
    return g.node("Mul", [x[0], g.node("HardSigmoid", x, op.name, alpha=1 / 6, beta=0.5)], op.name)


@register("swish")
def _swish(g, op, x):
    beta = scalar(g, op.attrs["beta"], out_dtype(op), f"{op.name}/beta")
    return g.node(
        "Mul", [x[0], g.node("Sigmoid", [g.node("Mul", [x[0], beta], op.name)], op.name)], op.name
    )


@register("mish")
def _mish(g, op, x):
    soft = g.node("Tanh", [g.node("Softplus", x, op.name)], op.name)
    return g.node("Mul", [x[0], soft], op.name)


_BINARY = {
    "add": "Add",
    "subtract": "Sub",
    "multiply": "Mul",
    "divide": "Div",
    "pow": "Pow",
    "maximum": "Max",
    "minimum": "Min",
}
_COMPARE = {
    "equal": "Equal",
    "less": "Less",
    "less_equal": "LessOrEqual",
    "greater": "Greater",
    "greater_equal": "GreaterOrEqual",
    "logical_and": "And",
}


@register(*_BINARY)
def _binary(g, op, x):
    return g.node(_BINARY[op.op_type], x, op.name)


def _equal(g: OnnxGraph, op: OpNode, a: str, b: str) -> str:
    if g.opset >= 11 or not op.inputs[0].dtype.is_floating:
        return g.node("Equal", [a, b], op.name)
    # Equal takes floats from opset 11: neither less nor greater
    differ = g.node(
        "Or", [g.node("Less", [a, b], op.name), g.node("Greater", [a, b], op.name)], op.name
    )
    return g.node("Not", [differ], op.name)


def _compare(g: OnnxGraph, op: OpNode, kind: str, a: str, b: str) -> str:
    if kind == "logical_and":
        a, b = (
            g.node("Cast", [v], op.name, to=helper.np_dtype_to_tensor_dtype(np.dtype(bool)))
            for v in (a, b)
        )
    if kind == "equal":
        out = _equal(g, op, a, b)
    elif kind == "not_equal":
        out = g.node("Not", [_equal(g, op, a, b)], op.name)
    elif kind in ("less_equal", "greater_equal") and g.opset < 12:  # no *OrEqual before 12
        strict = "Greater" if kind == "less_equal" else "Less"
        out = g.node("Not", [g.node(strict, [a, b], op.name)], op.name)
    else:
        out = g.node(_COMPARE[kind], [a, b], op.name)
    return g.node("Cast", [out], op.name, to=onnx_type(out_dtype(op), op.name))


@register(*_COMPARE, "not_equal")
def _comparison(g, op, x):
    return _compare(g, op, op.op_type, x[0], x[1])


@register(*(f"scalar_{k}" for k in (*_BINARY, *_COMPARE, "not_equal")))
def _scalar_binary(g, op, x):
    kind = op.op_type[len("scalar_") :]
    operand = g.const(
        np.asarray(op.attrs["operand"], dtype=op.inputs[0].dtype.np_dtype), f"{op.name}/operand"
    )
    a, b = (operand, x[0]) if op.attrs.get("reverse") else (x[0], operand)
    if kind in _BINARY:
        return g.node(_BINARY[kind], [a, b], op.name)
    return _compare(g, op, kind, a, b)


@register("add_n")
def _add_n(g, op, x):
    return g.node("Sum", x, op.name)


@register("cast")
def _cast(g, op, x):
    return g.node("Cast", x, op.name, to=onnx_type(out_dtype(op), op.name))


@register("where")
def _where(g, op, x):
    cond = g.node("Cast", [x[0]], op.name, to=helper.np_dtype_to_tensor_dtype(np.dtype(bool)))
    if len(x) == 3:
        return g.node("Where", [cond, x[1], x[2]], op.name)
    dt = out_dtype(op)
    rest = iter(x[1:])
    xv = (
        next(rest)
        if op.attrs["has_x"]
        else g.const(np.asarray(op.attrs["x_const"], dt), f"{op.name}/x")
    )
    yv = (
        next(rest)
        if op.attrs["y_const"] is None
        else g.const(np.asarray(op.attrs["y_const"], dt), f"{op.name}/y")
    )
    return g.node("Where", [cond, xv, yv], op.name)
