"""OneFlow v0.4 op confs of flowjob's neural-network ops: matrix products, normalization,
softmax, convolution, pooling and quantization (the rules of ``_jobset_ops.py``, which holds
the element-wise and shape ops)."""

from __future__ import annotations

from typing import Any

from ..graph import OpNode
from ._jobset_ops import OpSpec, constant_spec, generic, output_of, pad_attrs, rule, simple


# -- matrix, normalization, softmax -------------------------------------------------------
@rule("matmul", "batch_matmul")
def _matmul(op):
    if len(op.inputs) != 2:  # a NumPy operand (attrs["operand"]): no OneFlow form
        return generic(op)
    return [
        simple(
            op,
            op.op_type,
            ["a", "b"],
            ["out"],
            transpose_a=bool(op.attrs.get("transpose_a", False)),
            transpose_b=bool(op.attrs.get("transpose_b", False)),
            alpha=float(op.attrs.get("alpha", 1.0)),
        )
    ]


@rule("bias_add")
def _bias_add(op):
    axis = int(op.attrs["axis"]) % len(op.inputs[0].shape)
    return [simple(op, "bias_add", ["a", "b"], ["out"], axis=("int32", axis))]


@rule("softmax")
def _softmax(op):
    ndim = len(op.inputs[0].shape)
    axis = int(op.attrs.get("axis", -1)) % ndim
    if axis == ndim - 1:
        return [simple(op, "softmax", ["in"], ["out"])]
    # OneFlow's softmax works on the last axis: its Python layer swapped the axis there and back
    perm = list(range(ndim))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    shape, dtype = output_of(op)
    swapped = tuple(shape[p] for p in perm)
    before, inner = f"{op.name}-transpose_in", f"{op.name}-softmax"
    return [
        OpSpec(before, "transpose", [("input", op.inputs[0])], [("output", swapped, dtype)],
               {"perm": ("int32s", perm)}),
        OpSpec(inner, "softmax", [("in", f"{before}/output_0")], [("out", swapped, dtype)]),
        OpSpec(op.name, "transpose", [("input", f"{inner}/out_0")], [("output", shape, dtype)],
               {"perm": ("int32s", perm)}),
    ]  # fmt: skip


@rule("batch_normalization")
def _batch_norm(op):
    x, mean, variance, *rest = op.inputs
    axis = int(op.attrs["axis"]) % len(x.shape)
    channels = x.shape[axis]
    specs: list[OpSpec] = []

    def param(present: bool, what: str, value: float) -> Any:
        if present:
            return rest.pop(0)
        # OneFlow's batch normalization always had gamma and beta: a constant stands in
        name = f"{op.name}-{what}"
        specs.append(constant_spec(name, (channels,), mean.dtype, value))
        return f"{name}/out_0"

    beta = param(bool(op.attrs["has_offset"]), "beta", 0.0)
    gamma = param(bool(op.attrs["has_scale"]), "gamma", 1.0)
    specs.append(
        OpSpec(
            op.name,
            "normalization",
            [("x", x), ("moving_mean", mean), ("moving_variance", variance),
             ("gamma", gamma), ("beta", beta)],
            [("y", *output_of(op))],
            {"axis": ("int32", axis), "epsilon": ("float", op.attrs["epsilon"]),
             "training": False, "momentum": ("float", 0.99)},
        )
    )  # fmt: skip
    return specs


@rule("layer_norm")
def _layer_norm(op):
    x, *params = op.inputs
    gamma = params.pop(0) if op.attrs["has_gamma"] else None
    beta = params.pop(0) if op.attrs["has_beta"] else None
    begin = int(op.attrs["begin_norm_axis"])
    shape, dtype = output_of(op)
    inputs = [("x", x)] + [(k, b) for k, b in (("beta", beta), ("gamma", gamma)) if b is not None]
    stats = tuple(x.shape[:begin])  # OneFlow's layer_norm also gave the statistics it used
    return [
        OpSpec(op.name, "layer_norm", inputs,
               [("y", shape, dtype), ("mean", stats, dtype), ("inv_variance", stats, dtype)],
               {"center": beta is not None, "scale": gamma is not None,
                "begin_norm_axis": begin, "begin_params_axis": int(op.attrs["begin_params_axis"]),
                "epsilon": float(op.attrs["epsilon"])})
    ]  # fmt: skip


# -- convolution and pooling --------------------------------------------------------------
def _channels_last(fmt: Any) -> bool:
    return str(fmt) in ("NHWC", "NWC", "NDHWC")


@rule("conv2d")
def _conv2d(op):
    x, weight = op.inputs
    last = _channels_last(op.attrs["data_format"])
    pads = [tuple(int(v) for v in p) for p in op.attrs["pads"]]
    specs: list[OpSpec] = []
    source: Any = x
    if any(a != b for a, b in pads):  # uneven: an explicit pad op in front, as OneFlow did
        full = [(0, 0), *pads, (0, 0)] if last else [(0, 0), (0, 0), *pads]
        padded = tuple(d + a + b for d, (a, b) in zip(x.shape, full))
        name = f"{op.name}-pad"
        specs.append(OpSpec(name, "pad", [("x", x)], [("y", padded, x.dtype)],
                            pad_attrs(full, 0)))  # fmt: skip
        source, pads = f"{name}/y_0", [(0, 0)] * len(pads)
    kernel = list(weight.shape[1:3] if last else weight.shape[2:4])
    specs.append(
        OpSpec(
            op.name,
            "conv2d",
            [("in", source), ("weight", weight)],
            [("out", *output_of(op))],
            {
                "filters": ("int32", int(weight.shape[0])),
                "padding_before": ("int32s", [a for a, _ in pads]),
                "data_format": "channels_last" if last else "channels_first",
                "kernel_size": ("int32s", kernel),
                "strides": ("int32s", [int(s) for s in op.attrs["strides"]]),
                "dilation_rate": ("int32s", [int(d) for d in op.attrs["dilations"]]),
                "groups": ("int32", int(op.attrs["groups"])),
            },
        )
    )
    return specs


@rule("max_pool_2d", "avg_pool_2d")
def _pool2d(op):
    pads = [tuple(int(v) for v in p) for p in op.attrs["pads"]]
    last = _channels_last(op.attrs["data_format"])
    attrs: dict[str, Any] = {
        "padding_before": ("int32s", [a for a, _ in pads]),
        "padding_after": ("int32s", [b for _, b in pads]),
        "data_format": "channels_last" if last else "channels_first",
        "pool_size": ("int32s", [int(k) for k in op.attrs["ksize"]]),
        "strides": ("int32s", [int(s) for s in op.attrs["strides"]]),
        "ceil_mode": bool(op.attrs.get("ceil_mode", False)),
    }  # fmt: skip
    if not any(a or b for a, b in pads):
        attrs["padding"] = "valid"
    return [simple(op, op.op_type, ["x"], ["y"], **attrs)]


# -- quantization -------------------------------------------------------------------------
def _quant_attrs(op: OpNode) -> dict[str, Any]:
    return {
        "quantization_bit": ("int32", int(op.attrs["bit"])),
        "quantization_scheme": str(op.attrs["scheme"]),
        "quantization_formula": str(op.attrs["formula"]),
    }


@rule("fake_quantization")
def _fake_quantization(op):
    return [simple(op, "fake_quantization", ["in", "scale", "zero_point"], ["out"],
                    **_quant_attrs(op))]  # fmt: skip


@rule("min_max_observer")
def _min_max_observer(op):
    attrs = {**_quant_attrs(op), "per_layer_quantization": bool(op.attrs["per_layer"])}
    return [simple(op, "min_max_observer", ["in"], ["scale", "zero_point"], **attrs)]


@rule("moving_average_min_max_observer")
def _moving_observer(op):
    x, moving_max, moving_min, step = op.inputs
    attrs = {
        **_quant_attrs(op),
        "training": bool(op.attrs["training"]),
        "momentum": ("float", op.attrs["momentum"]),
        "stop_update_after_iters": int(op.attrs["stop_after"]),
    }
    # OneFlow updated moving_max/min in place: only scale and zero_point are outputs
    return [
        OpSpec(
            op.name,
            "moving_average_min_max_observer",
            [("in", x), ("current_train_step", step), ("moving_max", moving_max),
             ("moving_min", moving_min)],
            [("scale", *output_of(op, 0)), ("zero_point", *output_of(op, 1))],
            attrs,
        )
    ]  # fmt: skip
