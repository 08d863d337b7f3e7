"""ONNX conversions of flowjob's shape, reduction, normalization, matmul and conv op types.

Output shapes are static (known from the trace), so every shape-only op becomes one
``Reshape`` to its traced shape. Formulas follow the ops' JAX lowerings.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from ..graph import OpNode
from ._onnx_graph import OnnxGraph, onnx_type, out_dtype, register, scalar


def _out(op: OpNode, i: int = 0):
    return op.outputs[i]


# -- shapes ---------------------------------------------------------------------------------
@register("reshape", "flatten", "squeeze", "expand_dims", "reshape_like")
def _reshape(g, op, x):
    shape = list(_out(op).shape)
    if g.free_batch and shape:
        shape[0] = -1  # the batch size of the call, whatever it is
    return g.node("Reshape", [x[0], g.ints(shape, f"{op.name}/shape")], op.name)


@register("expand", "broadcast_like", "broadcast_to_compatible_with")
def _expand(g, op, x):
    value = x[0]
    if op.attrs.get("insert"):  # broadcast_like of x without the broadcast axes
        shape = list(op.inputs[0].shape)
        for axis in op.attrs["insert"]:
            shape.insert(axis, 1)
        value = g.node("Reshape", [value, g.ints(shape, f"{op.name}/inserted")], op.name)
    return g.node("Expand", [value, g.ints(_out(op).shape, f"{op.name}/shape")], op.name)


@register("transpose")
def _transpose(g, op, x):
    return g.node("Transpose", x, op.name, perm=[int(p) for p in op.attrs["perm"]])


@register("concat")
def _concat(g, op, x):
    if op.attrs.get("max_dim_size") not in (None, _out(op).shape[op.attrs["axis"]]):
        return None
    return g.node("Concat", x, op.name, axis=int(op.attrs["axis"]))


@register("slice")
def _slice(g, op, x):
    shape = op.inputs[0].shape
    starts, ends, steps = [], [], []
    for d, (a, b, c) in enumerate(zip(op.attrs["start"], op.attrs["stop"], op.attrs["step"])):
        lo, hi, step = builtins.slice(a, b, c).indices(shape[d])
        if step < 0 and hi < 0:
            hi = -shape[d] - 1  # ONNX: an end before the first element
        starts.append(lo)
        ends.append(hi)
        steps.append(step)
    axes = list(range(len(shape)))
    return g.node(
        "Slice",
        [
            x[0],
            g.ints(starts, f"{op.name}/starts"),
            g.ints(ends, f"{op.name}/ends"),
            g.ints(axes, f"{op.name}/axes"),
            g.ints(steps, f"{op.name}/steps"),
        ],
        op.name,
    )


@register("pad")
def _pad(g, op, x):
    pairs = op.attrs["paddings"]
    pads = [int(p[0]) for p in pairs] + [int(p[1]) for p in pairs]
    value = g.const(np.asarray(op.attrs["constant_value"], out_dtype(op)), f"{op.name}/value")
    if g.opset < 11:  # pads and value as attributes
        return g.node(
            "Pad",
            [x[0]],
            op.name,
            mode="constant",
            pads=pads,
            value=float(op.attrs["constant_value"]),
        )
    return g.node("Pad", [x[0], g.ints(pads, f"{op.name}/pads"), value], op.name, mode="constant")


@register("gather")
def _gather(g, op, x):
    if op.attrs.get("batch_dims", 0):
        return None
    return g.node("Gather", x, op.name, axis=int(op.attrs["axis"]))


# -- reductions and normalization ------------------------------------------------------------
_REDUCE = {
    "reduce_sum": "ReduceSum",
    "reduce_mean": "ReduceMean",
    "reduce_max": "ReduceMax",
    "reduce_min": "ReduceMin",
    "reduce_prod": "ReduceProd",
}


def reduce(g: OnnxGraph, kind: str, x: str, axes: list[int], keepdims: bool, hint: str) -> str:
    """ReduceSum takes its axes as an input from opset 13, the others from opset 18."""
    if g.opset >= (13 if kind == "ReduceSum" else 18):
        return g.node(kind, [x, g.ints(axes, f"{hint}/axes")], hint, keepdims=int(keepdims))
    return g.node(kind, [x], hint, axes=list(axes), keepdims=int(keepdims))


@register(*_REDUCE)
def _reduce(g, op, x):
    ndim = len(op.inputs[0].shape)
    axis = op.attrs.get("axis")
    axes = (
        list(range(ndim))
        if axis is None
        else [int(a) % ndim for a in (axis if isinstance(axis, (tuple, list)) else (axis,))]
    )
    keep = bool(op.attrs.get("keepdims"))
    out = reduce(g, _REDUCE[op.op_type], x[0], axes, keep, op.name)
    shape = op.inputs[0].shape
    onnx_shape = tuple(1 if d in axes else n for d, n in enumerate(shape) if keep or d not in axes)
    if onnx_shape != _out(op).shape:  # a full reduction gives (1,), ONNX a scalar
        out = g.node("Reshape", [out, g.ints(_out(op).shape, f"{op.name}/shape")], op.name)
    return out


def _softmax_like(g: OnnxGraph, op: OpNode, x: str, kind: str) -> str:
    """Before opset 13 Softmax flattens the axes from ``axis`` on: move ``axis`` last."""
    ndim = len(op.inputs[0].shape)
    axis = int(op.attrs["axis"]) % ndim
    if g.opset >= 13 or axis == ndim - 1:
        return g.node(kind, [x], op.name, axis=axis)
    perm = [d for d in range(ndim) if d != axis] + [axis]
    back = [perm.index(d) for d in range(ndim)]
    moved = g.node(kind, [g.node("Transpose", [x], op.name, perm=perm)], op.name, axis=ndim - 1)
    return g.node("Transpose", [moved], op.name, perm=back)


@register("softmax")
def _softmax(g, op, x):
    return _softmax_like(g, op, x[0], "Softmax")


@register("log_softmax")
def _log_softmax(g, op, x):
    return _softmax_like(g, op, x[0], "LogSoftmax")


@register("argmax")
def _argmax(g, op, x):
    axis = int(op.attrs["axis"]) % len(op.inputs[0].shape)
    out = g.node("ArgMax", x, op.name, axis=axis, keepdims=0)
    return g.node("Cast", [out], op.name, to=onnx_type(out_dtype(op), op.name))


def _param_shape(ndim: int, axis: int, size: int) -> list[int]:
    shape = [1] * ndim
    shape[axis] = size
    return shape


@register("bias_add")
def _bias_add(g, op, x):
    ndim = len(op.inputs[0].shape)
    shape = _param_shape(ndim, int(op.attrs["axis"]) % ndim, op.inputs[1].shape[0])
    bias = g.node("Reshape", [x[1], g.ints(shape, f"{op.name}/bias_shape")], op.name)
    return g.node("Add", [x[0], bias], op.name)


@register("batch_normalization")
def _batch_norm(g, op, x):
    ndim = len(op.inputs[0].shape)
    axis = int(op.attrs["axis"]) % ndim
    dt = out_dtype(op)
    channels = op.inputs[0].shape[axis]
    rest = list(x[3:])
    offset = (
        rest.pop(0)
        if op.attrs["has_offset"]
        else g.const(np.zeros(channels, dt), f"{op.name}/offset")
    )
    scale = (
        rest.pop(0) if op.attrs["has_scale"] else g.const(np.ones(channels, dt), f"{op.name}/scale")
    )
    params = [x[1], x[2], offset, scale]
    if axis == 1 and ndim >= 2 and all(len(b.shape) == 1 for b in op.inputs[1:]):
        return g.node(
            "BatchNormalization",
            [x[0], scale, offset, x[1], x[2]],
            op.name,
            epsilon=float(op.attrs["epsilon"]),
        )
    shape = g.ints(_param_shape(ndim, axis, channels), f"{op.name}/param_shape")
    mean, var, offset, scale = (g.node("Reshape", [p, shape], op.name) for p in params)
    eps = scalar(g, op.attrs["epsilon"], dt, f"{op.name}/eps")
    inv = g.node(
        "Reciprocal", [g.node("Sqrt", [g.node("Add", [var, eps], op.name)], op.name)], op.name
    )
    y = g.node("Mul", [g.node("Sub", [x[0], mean], op.name), inv], op.name)
    return g.node("Add", [g.node("Mul", [y, scale], op.name), offset], op.name)


@register("layer_norm")
def _layer_norm(g, op, x):
    ndim = len(op.inputs[0].shape)
    axes = list(range(int(op.attrs["begin_norm_axis"]) % ndim, ndim))
    eps = scalar(g, op.attrs["epsilon"], out_dtype(op), f"{op.name}/eps")
    mean = reduce(g, "ReduceMean", x[0], axes, True, op.name)
    centered = g.node("Sub", [x[0], mean], op.name)
    var = reduce(g, "ReduceMean", g.node("Mul", [centered, centered], op.name), axes, True, op.name)
    inv = g.node(
        "Reciprocal", [g.node("Sqrt", [g.node("Add", [var, eps], op.name)], op.name)], op.name
    )
    y = g.node("Mul", [centered, inv], op.name)
    rest = list(x[1:])
    if op.attrs["has_gamma"]:
        y = g.node("Mul", [y, rest.pop(0)], op.name)
    if op.attrs["has_beta"]:
        y = g.node("Add", [y, rest.pop(0)], op.name)
    return y


# -- linear algebra and convolution ----------------------------------------------------------
def _swap_last(g: OnnxGraph, value: str, ndim: int, hint: str) -> str:
    perm = list(range(ndim))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return g.node("Transpose", [value], hint, perm=perm)


@register("matmul", "batch_matmul", "broadcast_matmul")
def _matmul(g, op, x):
    if "operand" in op.attrs:  # one operand is a NumPy constant
        const = g.const(
            np.asarray(op.attrs["operand"], op.inputs[0].dtype.np_dtype), f"{op.name}/operand"
        )
        x = [const, x[0]] if op.attrs.get("reverse") else [x[0], const]
        shapes = [np.shape(op.attrs["operand"]), op.inputs[0].shape]
        if not op.attrs.get("reverse"):
            shapes.reverse()
    else:
        shapes = [op.inputs[0].shape, op.inputs[1].shape]
    a, b = x
    if op.attrs.get("transpose_a"):
        a = _swap_last(g, a, len(shapes[0]), op.name)
    if op.attrs.get("transpose_b"):
        b = _swap_last(g, b, len(shapes[1]), op.name)
    out = g.node("MatMul", [a, b], op.name)
    alpha = float(op.attrs.get("alpha", 1.0))
    if alpha != 1.0:
        out = g.node("Mul", [out, scalar(g, alpha, out_dtype(op), f"{op.name}/alpha")], op.name)
    return out


def _pads(pairs: Any) -> list[int]:
    return [int(p[0]) for p in pairs] + [int(p[1]) for p in pairs]


def _nchw(g: OnnxGraph, op: OpNode, value: str, fmt: str) -> str:
    return value if fmt == "NCHW" else g.node("Transpose", [value], op.name, perm=[0, 3, 1, 2])


def _from_nchw(g: OnnxGraph, op: OpNode, value: str, fmt: str) -> str:
    return value if fmt == "NCHW" else g.node("Transpose", [value], op.name, perm=[0, 2, 3, 1])


@register("conv2d")
def _conv2d(g, op, x):
    fmt = op.attrs["data_format"]
    attrs = op.attrs
    out = g.node(
        "Conv",
        [_nchw(g, op, x[0], fmt), _nchw(g, op, x[1], fmt)],
        op.name,
        strides=list(attrs["strides"]),
        pads=_pads(attrs["pads"]),
        dilations=list(attrs["dilations"]),
        group=int(attrs["groups"]),
    )
    return _from_nchw(g, op, out, fmt)


@register("max_pool_2d", "avg_pool_2d")
def _pool(g, op, x):
    fmt = op.attrs["data_format"]
    kind = "MaxPool" if op.op_type == "max_pool_2d" else "AveragePool"
    extra = {} if kind == "MaxPool" else {"count_include_pad": 0}
    out = g.node(
        kind,
        [_nchw(g, op, x[0], fmt)],
        op.name,
        kernel_shape=list(op.attrs["ksize"]),
        strides=list(op.attrs["strides"]),
        pads=_pads(op.attrs["pads"]),
        ceil_mode=int(bool(op.attrs["ceil_mode"])),
        **extra,
    )
    return _from_nchw(g, op, out, fmt)


@register("constant_like")
def _constant_like(g, op, x):
    # the value depends only on the input's (static) shape and dtype
    like = np.zeros(op.inputs[0].shape, op.inputs[0].dtype.np_dtype)
    return g.const(np.asarray(op.lowering(like, **op.attrs)), op.name)
