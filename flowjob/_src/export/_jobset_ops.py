"""How each flowjob op reads as OneFlow v0.4 op confs: the user op type, its argument names and
attributes (``_jobset.py`` assembles the ``JobSet`` from them).

A flowjob op becomes one or more ``OpSpec``s. Most map one to one; a few are the composition
OneFlow's Python layer recorded for them (``reduce_mean`` is ``reduce_sum`` then
``scalar_mul``; a softmax over another axis than the last is wrapped in transposes; a
convolution with uneven padding gets a ``pad`` op in front, as OneFlow's layers did). Ops with no
OneFlow counterpart keep their flowjob type name with generic arguments (``in`` / ``out_<i>``),
so the job stays complete; a tool that does not know them reports them as unsupported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import _dtypes
from ..graph import OpNode


@dataclass
class OpSpec:
    """One user op to write: ``inputs`` are (argument name, blob or lbn) pairs, in order;
    ``outputs`` (argument name, shape, dtype) in order; ``attrs`` the typed values
    (``_jobset.set_attr`` chooses the ``AttrValue`` field from the Python type, or from an
    explicit ``("shape"|"dtype"|"int32s"|..., value)`` pair)."""

    name: str
    op_type: str
    inputs: list[tuple[str, Any]]
    outputs: list[tuple[str, tuple[int, ...], _dtypes.DType]]
    attrs: dict[str, Any] = field(default_factory=dict)


Rule = Callable[[OpNode], list[OpSpec]]
RULES: dict[str, Rule] = {}


def rule(*op_types: str) -> Callable[[Rule], Rule]:
    def wrap(fn: Rule) -> Rule:
        for t in op_types:
            RULES[t] = fn
        return fn

    return wrap


def output_of(op: OpNode, i: int = 0) -> tuple[tuple[int, ...], _dtypes.DType]:
    b = op.outputs[i]
    return tuple(b.shape), b.dtype


def simple(op: OpNode, of_type: str, ins: list[str], outs: list[str], **attrs: Any) -> OpSpec:
    return OpSpec(
        op.name,
        of_type,
        list(zip(ins, op.inputs)),
        [(o, *output_of(op, i)) for i, o in enumerate(outs)],
        attrs,
    )


def generic(op: OpNode) -> list[OpSpec]:
    """An op with no OneFlow counterpart: its own type name, inputs as one list ``in``."""
    outs = ["out"] if len(op.outputs) == 1 else [f"out_{i}" for i in range(len(op.outputs))]
    spec = OpSpec(
        op.name,
        op.op_type,
        [("in", b) for b in op.inputs],
        [(o, *output_of(op, i)) for i, o in enumerate(outs)],
        {k: v for k, v in op.attrs.items() if not k.startswith("_")},
    )
    return [spec]


# -- element-wise -------------------------------------------------------------------------
_UNARY_XY = (
    "abs acos acosh asin asinh atan atanh ceil cos cosh erf erfc exp expm1 floor lgamma log "
    "log1p log_sigmoid negative reciprocal reciprocal_no_nan rint round rsqrt sigmoid_v2 sign "
    "sin sinh softplus sqrt square tan tanh"
).split()
_UNARY_IN_OUT = "relu sigmoid gelu hardsigmoid hardswish identity argmax".split()
_BINARY = {
    "add": "broadcast_add",
    "subtract": "broadcast_sub",
    "multiply": "broadcast_mul",
    "divide": "broadcast_div",
    "maximum": "broadcast_maximum",
    "minimum": "broadcast_minimum",
    "floor_mod": "broadcast_floor_mod",
    "equal": "broadcast_equal",
    "not_equal": "broadcast_not_equal",
    "greater": "broadcast_greater",
    "greater_equal": "broadcast_greater_equal",
    "less": "broadcast_less",
    "less_equal": "broadcast_less_equal",
    "logical_and": "broadcast_logical_and",
}


@rule(*_UNARY_XY)
def _unary_xy(op):
    return [simple(op, op.op_type, ["x"], ["y"])]


@rule(*_UNARY_IN_OUT)
def _unary_in_out(op):
    return [simple(op, op.op_type, ["in"], ["out"])]


@rule(*_BINARY)
def _binary(op):
    if len(op.inputs) != 2:
        return generic(op)
    return [simple(op, _BINARY[op.op_type], ["x", "y"], ["z"])]


def scalar_attrs(value: Any) -> dict[str, Any]:
    is_int = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    return {
        "has_int_operand": is_int,
        "has_float_operand": not is_int,
        "int_operand": int(value) if is_int else 0,
        "float_operand": 0.0 if is_int else float(value),
    }


@rule("scalar_add", "scalar_multiply", "scalar_subtract", "scalar_divide")
def _scalar(op):
    """OneFlow's scalar ops: ``x + c``, ``x * c``; ``x - c`` as ``x + (-c)``, ``c - x`` as
    ``negative(x) + c``, ``x / c`` as ``x * (1/c)`` for floats, ``c / x`` as a constant
    divided by ``x``."""
    operand = op.attrs.get("operand")
    if len(op.inputs) != 1 or np.ndim(operand) != 0:
        return generic(op)  # an array operand: OneFlow's constant op only fills
    value = operand.item() if isinstance(operand, np.generic) else operand
    reverse = bool(op.attrs.get("reverse", False))
    shape, dtype = output_of(op)
    if op.op_type in ("scalar_add", "scalar_multiply"):
        of_type = "scalar_add" if op.op_type == "scalar_add" else "scalar_mul"
        return [simple(op, of_type, ["in"], ["out"], **scalar_attrs(value))]
    if op.op_type == "scalar_subtract" and not reverse:
        return [simple(op, "scalar_add", ["in"], ["out"], **scalar_attrs(-value))]
    if op.op_type == "scalar_subtract":
        negated = f"{op.name}-negative"
        return [
            OpSpec(negated, "negative", [("x", op.inputs[0])], [("y", shape, dtype)]),
            OpSpec(op.name, "scalar_add", [("in", f"{negated}/y_0")], [("out", shape, dtype)],
                   scalar_attrs(value)),
        ]  # fmt: skip
    if not reverse and dtype.is_floating:
        return [simple(op, "scalar_mul", ["in"], ["out"], **scalar_attrs(1.0 / float(value)))]
    if not reverse:
        return generic(op)  # integer division by a constant: no OneFlow scalar op
    const = f"{op.name}-constant"
    return [
        constant_spec(const, (1,), dtype, value),
        OpSpec(op.name, "broadcast_div", [("x", f"{const}/out_0"), ("y", op.inputs[0])],
               [("z", shape, dtype)]),
    ]  # fmt: skip


@rule("add_n")
def _add_n(op):
    return [OpSpec(op.name, "add_n", [("in", b) for b in op.inputs], [("out", *output_of(op))])]


@rule("clip_by_scalar")
def _clip(op):
    lo, hi = op.attrs.get("lo"), op.attrs.get("hi")
    attrs: dict[str, Any] = {}
    if lo is not None:
        attrs.update(floating_min=float(lo), integral_min=int(lo))
    if hi is not None:
        attrs.update(floating_max=float(hi), integral_max=int(hi))
    kind = "clip_by_scalar" if lo is not None and hi is not None else None
    kind = kind or ("clip_by_scalar_min" if lo is not None else "clip_by_scalar_max")
    return [simple(op, kind, ["x"], ["y"], **attrs)]


@rule("leaky_relu")
def _leaky_relu(op):
    return [simple(op, "leaky_relu", ["x"], ["y"], alpha=("float", op.attrs["alpha"]))]


@rule("prelu")
def _prelu(op):
    return [simple(op, "prelu", ["x", "alpha"], ["y"])]


@rule("cast")
def _cast(op):
    return [simple(op, "cast", ["in"], ["out"], dtype=("dtype", op.outputs[0].dtype))]


@rule("constant")
def _constant(op):
    shape, dtype = output_of(op)
    return [constant_spec(op.name, shape, dtype, op.attrs["value"])]


def constant_spec(name: str, shape: tuple[int, ...], dtype: Any, value: Any) -> OpSpec:
    """OneFlow's ``constant`` op: ``shape`` filled with ``value``."""
    floating = bool(_dtypes.as_dtype(dtype).is_floating)
    return OpSpec(
        name,
        "constant",
        [],
        [("out", shape, dtype)],
        {
            "floating_value": float(value) if floating else 0.0,
            "integer_value": 0 if floating else int(value),
            "is_floating_value": floating,
            "dtype": ("dtype", dtype),
            "shape": ("shape", shape),
        },
    )


# -- shapes -------------------------------------------------------------------------------
@rule("reshape")
def _reshape(op):
    shape, _ = output_of(op)
    return [simple(op, "reshape", ["in"], ["out"], shape=("shape", shape))]


@rule("flatten")
def _flatten(op):
    src, dst = op.inputs[0].shape, op.outputs[0].shape
    start = 0
    while start < min(len(src), len(dst)) and src[start] == dst[start]:
        start += 1
    start = min(start, len(dst) - 1)
    end = start + len(src) - len(dst)
    end_dim = -1 if end == len(src) - 1 else end
    return [simple(op, "flatten", ["in"], ["out"], start_dim=("int32", start),
                    end_dim=("int32", end_dim))]  # fmt: skip


@rule("transpose")
def _transpose(op):
    perm = [int(p) for p in op.attrs["perm"]]
    return [simple(op, "transpose", ["input"], ["output"], perm=("int32s", perm))]


@rule("concat")
def _concat(op):
    shape, dtype = output_of(op)
    axis = int(op.attrs["axis"]) % len(shape)
    return [
        OpSpec(op.name, "concat", [("in", b) for b in op.inputs], [("out", shape, dtype)],
               {"axis": axis, "max_dim_size": int(shape[axis])})
    ]  # fmt: skip


@rule("gather_nd")
def _gather_nd(op):
    return [simple(op, "gather_nd", ["params", "indices"], ["out"])]


@rule("gather")
def _gather(op):
    if int(op.attrs.get("batch_dims", 0)):
        return generic(op)  # OneFlow's batch_gather had no axis; flowjob's form stays
    axis = int(op.attrs["axis"]) % len(op.inputs[0].shape)
    return [simple(op, "gather", ["in", "indices"], ["out"], axis=axis)]


@rule("slice")
def _slice(op):
    dims = op.inputs[0].shape
    start = [0 if v is None else int(v) for v in op.attrs["start"]]
    stop = [d if v is None else int(v) for v, d in zip(op.attrs["stop"], dims)]  # None: the end
    step = [1 if v is None else int(v) for v in op.attrs["step"]]
    lists = {"start": start, "stop": stop, "step": step}
    return [simple(op, "slice", ["x"], ["y"], **{k: ("int64s", v) for k, v in lists.items()})]


@rule("expand_dims")
def _expand_dims(op):
    return [simple(op, "expand_dims", ["in"], ["out"], axis=("int32", int(op.attrs["axis"])))]


@rule("squeeze")
def _squeeze(op):
    axes = [int(a) for a in op.attrs.get("axes", op.attrs.get("axis", ()))]
    return [simple(op, "squeeze", ["in"], ["out"], axes=("int32s", axes))]


@rule("pad")
def _pad(op):
    pairs = op.attrs["paddings"]
    value = op.attrs.get("constant_value", 0)
    return [simple(op, "pad", ["x"], ["y"], **pad_attrs(pairs, value))]


def pad_attrs(pairs: Any, value: Any) -> dict[str, Any]:
    return {
        "padding_before": ("int64s", [int(p[0]) for p in pairs]),
        "padding_after": ("int64s", [int(p[1]) for p in pairs]),
        "floating_constant_value": float(value),
        "integral_constant_value": int(value),
    }


@rule("reduce_sum", "reduce_min", "reduce_max", "reduce_prod", "reduce_mean")
def _reduce(op):
    x = op.inputs[0]
    axis = op.attrs.get("axis")
    axes = list(range(len(x.shape))) if axis is None else [int(a) % len(x.shape) for a in axis]
    attrs = {"axis": ("int32s", axes), "keepdims": bool(op.attrs.get("keepdims", False))}
    if op.op_type != "reduce_mean":
        return [simple(op, op.op_type, ["input_tensor"], ["output_tensor"], **attrs)]
    # OneFlow's reduce_mean: the sum, then a multiplication by 1 / the reduced count
    shape, dtype = output_of(op)
    count = int(np.prod([x.shape[a] for a in axes])) if axes else 1
    total = f"{op.name}-reduce_sum"
    return [
        OpSpec(total, "reduce_sum", [("input_tensor", x)], [("output_tensor", shape, dtype)],
               attrs),
        OpSpec(op.name, "scalar_mul", [("in", f"{total}/output_tensor_0")], [("out", shape, dtype)],
               scalar_attrs(1.0 / count)),
    ]  # fmt: skip


def specs_for(op: OpNode) -> list[OpSpec]:
    """The OneFlow user ops that stand for ``op`` (in order; the one named as ``op`` makes its
    outputs). The rules are those of this module and of ``_jobset_nn.py``."""
    make = RULES.get(op.op_type, generic)
    try:
        return make(op)
    except (KeyError, TypeError, ValueError, IndexError):
        return generic(op)  # attributes this rule does not expect: keep the op as it is
