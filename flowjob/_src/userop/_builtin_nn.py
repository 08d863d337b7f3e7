"""More of OneFlow v0.4's op types onto flowjob's nn and array ops (issue 46): batch and layer
normalization, pooling, convolutions, padding, losses, activations, gathers and scatters.

OneFlow's names throughout (the ``normalization`` op of a program's own batch-norm wrapper:
inputs ``x``, ``moving_mean``, ``moving_variance``, ``gamma``, ``beta``; outputs ``y``,
``mean``, ``inv_variance``; attributes ``axis``, ``epsilon``, ``training``, ``momentum``).
"""

from __future__ import annotations

from typing import Any

from ..graph import Blob
from ..ops import _functional_losses, _normalization, array_ops, math, nn
from ._registry import OpCall, define


def _normalization_op(c: OpCall) -> dict[str, list[Blob]]:
    """Training: normalizes with the batch's statistics and moves ``moving_mean`` and
    ``moving_variance`` toward them in place (``moving = momentum * moving + (1 - momentum) *
    batch``), as OneFlow's kernel did; ``mean``/``inv_variance`` are the batch's. Inference:
    normalizes with the moving statistics."""
    a = c.attrs
    x, mean_in, var_in = c.input("x"), c.input("moving_mean"), c.input("moving_variance")
    gamma, beta = c.input("gamma"), c.input("beta")
    axis, eps = int(a["axis"]) % len(x.shape), float(a["epsilon"])
    if not a["training"]:
        y = nn.batch_normalization(
            x,
            mean_in,
            var_in,
            offset=beta,
            scale=gamma,
            variance_epsilon=eps,
            axis=axis,
            name=c.name,
        )
        return {"y": [y]}
    y, new_mean, new_var = _normalization.batch_norm_train(
        x, mean_in, var_in, gamma, beta, axis, eps, float(a["momentum"]), c.name
    )
    array_ops.assign(mean_in, new_mean)
    array_ops.assign(var_in, new_var)
    out = {"y": [y]}
    if "mean" in c.output_counts or "inv_variance" in c.output_counts:
        axes = [i for i in range(len(x.shape)) if i != axis]
        mean, var = nn.moments(x, axes)
        out["mean"], out["inv_variance"] = [mean], [math.rsqrt(var + eps)]
    return out


def _layer_norm(c: OpCall) -> dict[str, list[Blob]]:
    a = c.attrs
    x = c.input("x")
    gamma = c.inputs["gamma"][0] if a["scale"] and c.inputs.get("gamma") else None
    beta = c.inputs["beta"][0] if a["center"] and c.inputs.get("beta") else None
    begin = int(a["begin_norm_axis"]) % len(x.shape)
    eps = float(a["epsilon"])
    y = nn.layer_norm(x, gamma, beta, begin, int(a["begin_params_axis"]), eps, name=c.name)
    mean, var = nn.moments(x, list(range(begin, len(x.shape))))
    return {"y": [y], "mean": [mean], "inv_variance": [math.rsqrt(var + eps)]}


_POOLS = {
    "avg_pool_1d": nn.avg_pool1d,
    "avg_pool_2d": nn.avg_pool2d,
    "avg_pool_3d": nn.avg_pool3d,
    "max_pool_1d": nn.max_pool1d,
    "max_pool_2d": nn.max_pool2d,
    "max_pool_3d": nn.max_pool3d,
}
_FORMATS = {1: ("NCW", "NWC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _spatial_padding(c: OpCall, ndim: int, first: bool, mode: str) -> Any:
    """OneFlow's padding attributes as flowjob's ``padding`` argument: a mode string, or one
    (before, after) pair per input axis."""
    before, after = list(c.attrs["padding_before"]), list(c.attrs["padding_after"])
    if mode.lower() in ("valid", "same_lower", "same_upper") and not any(before + after):
        return mode.upper()
    pairs = [(int(b), int(e)) for b, e in zip(before, after)]
    return [(0, 0), (0, 0), *pairs] if first else [(0, 0), *pairs, (0, 0)]


def _pool(fn, ndim: int):
    def build(c: OpCall) -> Blob:
        a = c.attrs
        first = a["data_format"] == "channels_first"
        extra = {"ceil_mode": bool(a["ceil_mode"])} if ndim == 2 else {}
        if ndim != 2 and a["ceil_mode"]:
            raise ValueError(f"op {c.name!r} ({c.op_type}): ceil_mode is supported in 2-D only")
        return fn(
            c.input("x"),
            list(a["pool_size"]),
            list(a["strides"]),
            _spatial_padding(c, ndim, first, a["padding"]),
            data_format=_FORMATS[ndim][0 if first else 1],
            name=c.name,
            **extra,
        )

    return build


def _conv(fn, ndim: int):
    def build(c: OpCall) -> Blob:
        a = c.attrs
        first = a.get("data_format", "channels_first") == "channels_first"
        pads = [(int(p), int(p)) for p in a["padding_before"]]
        padding = [(0, 0), (0, 0), *pads] if first else [(0, 0), *pads, (0, 0)]
        data_format = _FORMATS[ndim][0 if first else 1]
        out = fn(
            c.input("in"),
            c.input("weight"),
            list(a["strides"]),
            padding,
            data_format=data_format,
            dilations=list(a["dilation_rate"]),
            groups=int(a["groups"]),
            name=c.name,
        )
        if c.inputs.get("bias"):
            out = nn.bias_add(out, c.input("bias"), data_format="NCHW" if first else "NHWC")
        return out

    return build


def _pad_value(c: OpCall, floating: str, integral: str) -> float | int:
    x = c.input("x")
    return float(c.attrs[floating]) if x.dtype.is_floating else int(c.attrs[integral])


def _softmax_loss(sparse: bool):
    def build(c: OpCall) -> dict[str, list[Blob]]:
        prediction, label = c.input("prediction"), c.input("label")
        fn = (
            nn.sparse_softmax_cross_entropy_with_logits
            if sparse
            else nn.softmax_cross_entropy_with_logits
        )
        out = fn(label, prediction, name=c.name)
        return {"prob": [nn.softmax(prediction)], "out": [out]}

    return build


def _register() -> None:
    define(
        "normalization",
        ["x", "moving_mean", "moving_variance", "gamma", "beta"],
        ["y", "mean", "inv_variance"],
        _normalization_op,
        attrs={"axis": None, "epsilon": None, "training": None, "momentum": None},
    )
    define(
        "layer_norm",
        ["x"],
        ["y", "mean", "inv_variance"],
        _layer_norm,
        optional=["beta", "gamma"],
        attrs={
            "center": None,
            "scale": None,
            "begin_norm_axis": None,
            "begin_params_axis": None,
            "epsilon": None,
        },
    )
    pool_attrs = {
        "padding": None,
        "padding_before": None,
        "padding_after": None,
        "data_format": None,
        "pool_size": None,
        "strides": None,
        "ceil_mode": False,
    }
    for op_type, fn in _POOLS.items():
        define(op_type, ["x"], ["y"], _pool(fn, int(op_type[-2])), attrs=pool_attrs)
    conv_attrs = {
        "filters": 0,
        "padding_before": None,
        "data_format": "channels_first",
        "kernel_size": None,
        "strides": None,
        "dilation_rate": None,
        "groups": 1,
    }
    for op_type, fn, ndim in (("conv1d", nn.conv1d, 1), ("conv3d", nn.conv3d, 3)):
        define(
            op_type, ["in", "weight"], ["out"], _conv(fn, ndim), optional=["bias"], attrs=conv_attrs
        )
    define(
        "pad",
        ["x"],
        ["y"],
        lambda c: array_ops.pad(
            c.input("x"),
            list(zip(c.attrs["padding_before"], c.attrs["padding_after"])),
            _pad_value(c, "floating_constant_value", "integral_constant_value"),
            name=c.name,
        ),
        attrs={
            "padding_before": None,
            "padding_after": None,
            "floating_constant_value": 0.0,
            "integral_constant_value": 0,
        },
    )
    pad2d_attrs = {"padding": None, "floating_value": 0.0, "integral_value": 0}
    for op_type, fn in (
        ("reflection_pad2d", array_ops.reflection_pad2d),
        ("replication_pad2d", array_ops.replication_pad2d),
    ):
        define(
            op_type,
            ["x"],
            ["y"],
            lambda c, fn=fn: fn(c.input("x"), list(c.attrs["padding"]), name=c.name),
            attrs=pad2d_attrs,
        )
    define(
        "constant_pad2d",
        ["x"],
        ["y"],
        lambda c: array_ops.constant_pad2d(
            c.input("x"),
            list(c.attrs["padding"]),
            _pad_value(c, "floating_value", "integral_value"),
            name=c.name,
        ),
        attrs=pad2d_attrs,
    )
    define(
        "sigmoid_cross_entropy",
        ["prediction", "label"],
        ["loss"],
        lambda c: nn.sigmoid_cross_entropy_with_logits(
            c.input("label"), c.input("prediction"), name=c.name
        ),
    )
    define("softmax_cross_entropy", ["prediction", "label"], ["prob", "out"], _softmax_loss(False))
    for op_type in ("sparse_softmax_cross_entropy", "sparse_softmax_cross_entropy_ms"):
        define(
            op_type,
            ["prediction", "label"],
            ["prob", "out"],
            _softmax_loss(True),
            attrs={"depth": None},
        )
    for op_type in ("sparse_cross_entropy", "sparse_cross_entropy_ms"):
        define(
            op_type,
            ["prediction", "label"],
            ["out"],
            lambda c: nn.sparse_cross_entropy(c.input("label"), c.input("prediction"), name=c.name),
            attrs={"depth": None},
        )
    define(
        "smooth_l1_loss",
        ["prediction", "label"],
        ["loss"],
        lambda c: _functional_losses.smooth_l1_loss(
            c.input("prediction"), c.input("label"), float(c.attrs["beta"]), name=c.name
        ),
        attrs={"beta": None},
    )
    define(
        "elu",
        ["in"],
        ["out"],
        lambda c: nn.elu(c.input("in"), float(c.attrs["alpha"]), name=c.name),
        attrs={"alpha": None},
    )
    define("hardsigmoid", ["in"], ["out"], lambda c: nn.hardsigmoid(c.input("in"), name=c.name))
    define("hardswish", ["in"], ["out"], lambda c: nn.hardswish(c.input("in"), name=c.name))
    define(
        "hardtanh",
        ["in"],
        ["out"],
        lambda c: nn.hardtanh(
            c.input("in"), float(c.attrs["min_val"]), float(c.attrs["max_val"]), name=c.name
        ),
        attrs={"min_val": None, "max_val": None},
    )
    define(
        "dropout",
        ["in", "mask"],
        ["out"],
        lambda c: math.multiply(
            math.multiply(c.input("in"), array_ops.cast(c.input("mask"), c.input("in").dtype)),
            float(c.attrs["scale"]),
            name=c.name,
        ),
        attrs={"scale": None},
    )
    _register_indexing()


def _register_indexing() -> None:
    define(
        "gather_nd",
        ["params", "indices"],
        ["out"],
        lambda c: array_ops.gather_nd(c.input("params"), c.input("indices"), name=c.name),
    )
    define(
        "batch_gather",
        ["in", "indices"],
        ["out"],
        lambda c: array_ops.gather(
            c.input("in"),
            c.input("indices"),
            axis=len(c.input("indices").shape) - 1,
            batch_dims=len(c.input("indices").shape) - 1,
            name=c.name,
        ),
    )
    define(
        "dim_gather",
        ["input", "index"],
        ["output"],
        lambda c: array_ops.dim_gather(
            c.input("input"), int(c.attrs["dim"]), c.input("index"), name=c.name
        ),
        attrs={"dim": None},
    )
    define(
        "scatter_nd",
        ["indices", "updates"],
        ["out"],
        lambda c: array_ops.scatter_nd(
            c.input("indices"), c.input("updates"), list(c.attrs["shape"]), name=c.name
        ),
        attrs={"shape": None},
    )
    define(
        "scatter_nd_like",
        ["like", "indices", "updates"],
        ["out"],
        lambda c: array_ops.scatter_nd(
            c.input("indices"), c.input("updates"), list(c.input("like").shape), name=c.name
        ),
    )
    for op_type, fn in (
        ("tensor_scatter_nd_add", array_ops.tensor_scatter_nd_add),
        ("tensor_scatter_nd_update", array_ops.tensor_scatter_nd_update),
    ):
        define(
            op_type,
            ["params", "updates", "indices"],
            ["out"],
            lambda c, fn=fn: fn(
                c.input("params"), c.input("indices"), c.input("updates"), name=c.name
            ),
        )
    define(
        "slice",
        ["x"],
        ["y"],
        lambda c: array_ops.slice_v2(
            c.input("x"),
            [list(t) for t in zip(c.attrs["start"], c.attrs["stop"], c.attrs["step"])],
            name=c.name,
        ),
        attrs={"start": None, "stop": None, "step": None},
    )
    define(
        "unsorted_segment_sum",
        ["data", "segment_ids"],
        ["out"],
        lambda c: math.unsorted_segment_sum(
            c.input("data"),
            c.input("segment_ids"),
            int(c.attrs["num_segments"]),
            int(c.attrs["axis"]),
            name=c.name,
        ),
        attrs={"axis": None, "num_segments": None},
    )
    define(
        "unsorted_segment_sum_like",
        ["data", "segment_ids", "like"],
        ["out"],
        lambda c: math.unsorted_segment_sum_like(
            c.input("data"),
            c.input("segment_ids"),
            c.input("like"),
            int(c.attrs["axis"]),
            name=c.name,
        ),
        attrs={"axis": None},
    )
    define(
        "unsorted_batch_segment_sum",
        ["data", "segment_ids"],
        ["out"],
        lambda c: math.unsorted_batch_segment_sum(
            c.input("data"), c.input("segment_ids"), int(c.attrs["num_segments"]), name=c.name
        ),
        attrs={"num_segments": None},
    )
    define(
        "assign",
        ["ref", "value"],
        [],
        lambda c: array_ops.assign(c.input("ref"), c.input("value"), name=c.name) or {},
    )


_register()
