"""OneFlow v0.4's registered op types (names, argument names, attributes) onto flowjob's ops.

Most entries call the public op function that already implements the op; the few ops that
flowjob exposes under no public function (``multi_square_sum``, ``reduce_sum_like``...) get
a small lowering here.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .. import _dtypes
from ..graph import Blob, apply_op
from ..ops import array_ops, math, nn
from ..optimizer import loss_scale
from ._registry import OpCall, define

# OneFlow's math unary ops are registered with arguments "x" -> "y".
_MATH_UNARY = {
    "abs": math.abs,
    "acos": math.acos,
    "asin": math.asin,
    "atan": math.atan,
    "ceil": math.ceil,
    "cos": math.cos,
    "cosh": math.cosh,
    "erf": math.erf,
    "exp": math.exp,
    "floor": math.floor,
    "log": math.log,
    "negative": math.negative,
    "reciprocal": math.reciprocal,
    "rsqrt": math.rsqrt,
    "sign": math.sign,
    "sin": math.sin,
    "sinh": math.sinh,
    "sqrt": math.sqrt,
    "square": math.square,
    "tan": math.tan,
    "tanh": math.tanh,
}
# Activations registered with "in" -> "out".
_IN_OUT_UNARY = {
    "relu": math.relu,
    "sigmoid": math.sigmoid,
    "gelu": math.gelu,
    "softmax": nn.softmax,
    "identity": array_ops.identity,
}
# Broadcasting binary ops: "x", "y" -> "z".
_BROADCAST = {
    "broadcast_add": math.add,
    "broadcast_sub": math.subtract,
    "broadcast_mul": math.multiply,
    "broadcast_div": math.divide,
    "broadcast_maximum": math.maximum,
    "broadcast_minimum": math.minimum,
}


def _scalar_operand(c: OpCall):
    if c.attrs.get("has_int_operand"):
        return int(c.attrs["int_operand"])
    return float(c.attrs["float_operand"])


def _scalar(fn):
    def build(c: OpCall) -> Blob:
        return fn(c.input("in"), _scalar_operand(c), name=c.name)

    return build


def _constant(c: OpCall) -> Blob:
    a = c.attrs
    value = a["floating_value"] if a.get("is_floating_value") else a["integer_value"]
    return array_ops.constant(value, dtype=a["dtype"], shape=list(a["shape"]), name=c.name)


def _conv2d(c: OpCall) -> Blob:
    a = c.attrs
    pads = [(int(p), int(p)) for p in a["padding_before"]]
    channels_first = a.get("data_format", "channels_first") == "channels_first"
    padding = [(0, 0), (0, 0), *pads] if channels_first else [(0, 0), *pads, (0, 0)]
    out = nn.conv2d(
        c.input("in"),
        c.input("weight"),
        strides=list(a["strides"]),
        padding=padding,
        data_format="NCHW" if channels_first else "NHWC",
        dilations=list(a.get("dilation_rate", [1, 1])),
        groups=a.get("groups", 1),
        name=c.name,
    )
    if c.inputs.get("bias"):
        out = nn.bias_add(out, c.input("bias"), data_format="NCHW" if channels_first else "NHWC")
    return out


def _matmul(c: OpCall) -> Blob:
    a = c.attrs
    return array_ops.matmul(
        c.input("a"),
        c.input("b"),
        transpose_a=a.get("transpose_a", False),
        transpose_b=a.get("transpose_b", False),
        alpha=a.get("alpha", 1.0),
        name=c.name,
    )


def _multi_square_sum(c: OpCall) -> Blob:
    def lowering(*xs):
        return sum(jnp.sum(jnp.square(x)) for x in xs).reshape(1)

    return apply_op("multi_square_sum", lowering, c.inputs["x"], name=c.name)


def _reduce_sum_like(c: OpCall) -> Blob:
    axis = tuple(c.attrs["axis"])

    def lowering(x, like):
        return jnp.sum(x, axis=axis).reshape(like.shape).astype(x.dtype)

    return apply_op("reduce_sum_like", lowering, [c.input("x"), c.input("like")], name=c.name)


def _split_like(c: OpCall) -> dict[str, list[Blob]]:
    axis = int(c.attrs["axis"])
    likes = c.inputs["like"]
    sizes = [like.shape[axis] for like in likes]
    cuts = tuple(int(s) for s in np.cumsum(sizes)[:-1])

    def lowering(x, *_likes):
        return tuple(jnp.split(x, cuts, axis=axis))

    outs = apply_op("split_like", lowering, [c.input("in"), *likes], name=c.name)
    return {"out": list(outs)}


def _fused_cast_scale(c: OpCall) -> Blob:
    scale = float(c.attrs.get("scale", 1.0))
    x, by = c.input("x"), c.input("scale_by_tensor")

    def lowering(x, by):
        return x.astype(by.dtype) * by.reshape(()) * jnp.asarray(scale, by.dtype)

    return apply_op("fused_cast_scale", lowering, [x, by], name=c.name)


def _dynamic_loss_scale_schedule(c: OpCall) -> dict[str, list[Blob]]:
    """Updates the variables ``loss_scale`` and ``good_step_counter`` in place (OneFlow's
    kernel writes its inputs), by the arithmetic of the dynamic loss scale policy."""
    scale, counter = c.input("loss_scale"), c.input("good_step_counter")
    # the initial loss scale plays no part in the update
    policy = loss_scale.dynamic_loss_scale(
        increment_period=int(c.attrs["increment_period"]),
        multiplier=float(c.attrs["multiplier"]),
    )
    names = policy.names(c.name)

    def lowering(count_not_finite, scale_value, counter_value):
        state = {names[0]: scale_value, names[1]: counter_value}
        new = policy.next_state(c.name, state, count_not_finite[0] == 0)
        return new[names[0]], new[names[1]]

    new_scale, new_counter = apply_op(
        "dynamic_loss_scale_schedule",
        lowering,
        [c.input("count_not_finite"), scale, counter],
        name=c.name,
    )
    array_ops.assign(scale, new_scale)
    array_ops.assign(counter, new_counter)
    return {}


def _register() -> None:
    for op_type, fn in _MATH_UNARY.items():
        define(op_type, ["x"], ["y"], lambda c, fn=fn: fn(c.input("x"), name=c.name))
    for op_type, fn in _IN_OUT_UNARY.items():
        define(op_type, ["in"], ["out"], lambda c, fn=fn: fn(c.input("in"), name=c.name))
    for op_type, fn in _BROADCAST.items():
        define(
            op_type, ["x", "y"], ["z"], lambda c, fn=fn: fn(c.input("x"), c.input("y"), name=c.name)
        )
    scalar_attrs = {
        "has_int_operand": False,
        "has_float_operand": False,
        "int_operand": 0,
        "float_operand": 0.0,
    }
    define("scalar_add", ["in"], ["out"], _scalar(math.add), attrs=scalar_attrs)
    define(
        "dynamic_loss_scale_schedule",
        ["count_not_finite", "loss_scale", "good_step_counter"],
        [],
        _dynamic_loss_scale_schedule,
        attrs={"increment_period": 2000, "multiplier": 2.0},
    )
    define("scalar_mul", ["in"], ["out"], _scalar(math.multiply), attrs=scalar_attrs)
    define(
        "leaky_relu",
        ["x"],
        ["y"],
        lambda c: nn.leaky_relu(c.input("x"), alpha=c.attrs["alpha"], name=c.name),
        attrs={"alpha": 0.2},
    )
    define(
        "cast",
        ["in"],
        ["out"],
        lambda c: array_ops.cast(c.input("in"), _dtypes.as_dtype(c.attrs["dtype"]), name=c.name),
        attrs={"dtype": None},
    )
    define(
        "reshape",
        ["in"],
        ["out"],
        lambda c: array_ops.reshape(c.input("in"), list(c.attrs["shape"]), name=c.name),
        attrs={"shape": None},
    )
    define(
        "flatten",
        ["in"],
        ["out"],
        lambda c: array_ops.flatten(
            c.input("in"), c.attrs["start_dim"], c.attrs["end_dim"], name=c.name
        ),
        attrs={"start_dim": 0, "end_dim": -1},
    )
    define(
        "transpose",
        ["input"],
        ["output"],
        lambda c: array_ops.transpose(c.input("input"), list(c.attrs["perm"]), name=c.name),
        attrs={"perm": None},
    )
    define(
        "expand_dims",
        ["in"],
        ["out"],
        lambda c: array_ops.expand_dims(c.input("in"), c.attrs["axis"], name=c.name),
        attrs={"axis": 0},
    )
    define(
        "squeeze",
        ["in"],
        ["out"],
        lambda c: array_ops.squeeze(c.input("in"), list(c.attrs["axes"]), name=c.name),
        attrs={"axes": None},
    )
    define(
        "concat",
        ["in"],
        ["out"],
        lambda c: array_ops.concat(c.inputs["in"], axis=c.attrs["axis"], name=c.name),
        attrs={"axis": 0, "max_dim_size": 0},
    )
    define(
        "gather",
        ["in", "indices"],
        ["out"],
        lambda c: array_ops.gather(
            c.input("in"), c.input("indices"), axis=c.attrs["axis"], name=c.name
        ),
        attrs={"axis": 0},
    )
    define("add_n", ["in"], ["out"], lambda c: math.add_n(c.inputs["in"], name=c.name))
    define(
        "bias_add",
        ["a", "b"],
        ["out"],
        lambda c: _bias_add(c.input("a"), c.input("b"), c.attrs["axis"], c.name),
        attrs={"axis": 1},
    )
    matmul_attrs = {"transpose_a": False, "transpose_b": False, "alpha": 1.0}
    define("matmul", ["a", "b"], ["out"], _matmul, attrs=matmul_attrs)
    define("batch_matmul", ["a", "b"], ["out"], _matmul, attrs=matmul_attrs)
    define(
        "conv2d",
        ["in", "weight"],
        ["out"],
        _conv2d,
        optional=["bias"],
        attrs={
            "filters": 0,
            "padding_before": None,
            "data_format": "channels_first",
            "kernel_size": None,
            "strides": None,
            "dilation_rate": [1, 1],
            "groups": 1,
        },
    )
    define(
        "constant",
        [],
        ["out"],
        _constant,
        attrs={
            "floating_value": 0.0,
            "integer_value": 0,
            "is_floating_value": False,
            "dtype": None,
            "shape": None,
        },
    )
    define(
        "ones_like", ["like"], ["out"], lambda c: array_ops.ones_like(c.input("like"), name=c.name)
    )
    define(
        "zeros_like",
        ["like"],
        ["out"],
        lambda c: array_ops.zeros_like(c.input("like"), name=c.name),
    )
    define("multi_square_sum", ["x"], ["y"], _multi_square_sum)
    define("reduce_sum_like", ["x", "like"], ["y"], _reduce_sum_like, attrs={"axis": None})
    define("split_like", ["in", "like"], ["out"], _split_like, attrs={"axis": 0})
    define(
        "fused_cast_scale", ["x", "scale_by_tensor"], ["y"], _fused_cast_scale, attrs={"scale": 1.0}
    )


def _bias_add(a: Blob, b: Blob, axis: int, name: str) -> Blob:
    def lowering(a, b):
        shape = [1] * a.ndim
        shape[axis % a.ndim] = b.shape[0]
        return a + b.reshape(shape)

    return apply_op("bias_add", lowering, [a, b], name=name)


_register()
