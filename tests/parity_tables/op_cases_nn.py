"""Cases of ``_builtin_nn``'s op types (pooling, convolution, padding, losses, activations,
layer norm, gathers and scatters): the built op against the public call (see op_cases)."""

from __future__ import annotations

import flowjob as flow
from tests.parity_tables.op_cases import _one

N, M = flow.nn, flow.math
_softmax_b = lambda v: N.softmax(v["b"])  # noqa: E731
_row_sums = lambda v: M.reduce_sum(v["a"], axis=1)  # noqa: E731 - shape (2,)
_first_row = lambda v: flow.slice_v2(v["b"], [[0, 1, 1], [0, 3, 1]])  # noqa: E731 - (1, 3)
_one_index = lambda v: flow.reshape(flow.slice_v2(v["idx2"], [[1, 2, 1]]), (1, 1))  # noqa: E731
_like33 = lambda v: flow.concat([v["a"], v["b"]], axis=0)  # noqa: E731 - shape (4, 3)


def _pool_attrs(ndim, padding, before, after, size, stride, fmt="channels_first"):
    return {
        "padding": padding,
        "padding_before": before,
        "padding_after": after,
        "data_format": fmt,
        "pool_size": size,
        "strides": stride,
        "ceil_mode": False,
    }


CASES = [
    _one(
        "avg_pool_2d",
        [("x", "x4")],
        ["y"],
        _pool_attrs(2, "valid", [0, 0], [0, 0], [2, 2], [1, 1]),
        lambda v: N.avg_pool2d(v["x4"], 2, 1, "VALID"),
    ),
    _one(
        "max_pool_2d",
        [("x", "x4")],
        ["y"],
        _pool_attrs(2, "customized", [1, 1], [1, 1], [3, 3], [2, 2]),
        lambda v: N.max_pool2d(v["x4"], 3, 2, [(0, 0), (0, 0), (1, 1), (1, 1)]),
    ),
    _one(
        "avg_pool_1d",
        [("x", "x3")],
        ["y"],
        _pool_attrs(1, "same_upper", [0], [0], [3], [2]),
        lambda v: N.avg_pool1d(v["x3"], 3, 2, "SAME_UPPER"),
    ),
    _one(
        "max_pool_1d",
        [("x", "x3")],
        ["y"],
        _pool_attrs(1, "valid", [0], [0], [2], [2]),
        lambda v: N.max_pool1d(v["x3"], 2, 2, "VALID", data_format="NCW"),
    ),
    _one(
        "avg_pool_3d",
        [("x", "x5")],
        ["y"],
        _pool_attrs(3, "valid", [0, 0, 0], [0, 0, 0], [2, 2, 2], [2, 2, 2]),
        lambda v: N.avg_pool3d(v["x5"], 2, 2, "VALID"),
    ),
    _one(
        "max_pool_3d",
        [("x", "x5")],
        ["y"],
        _pool_attrs(3, "valid", [0, 0, 0], [0, 0, 0], [2, 2, 2], [1, 1, 1]),
        lambda v: N.max_pool3d(v["x5"], 2, 1, "VALID"),
    ),
    _one(
        "conv1d",
        [("in", "x3"), ("weight", "w3")],
        ["out"],
        {
            "filters": 3,
            "padding_before": [1],
            "kernel_size": [3],
            "strides": [1],
            "dilation_rate": [1],
        },
        lambda v: N.conv1d(v["x3"], v["w3"], 1, [(0, 0), (0, 0), (1, 1)]),
    ),
    _one(
        "conv3d",
        [("in", "x5"), ("weight", "w5")],
        ["out"],
        {
            "filters": 2,
            "padding_before": [0, 0, 0],
            "kernel_size": [2, 2, 2],
            "strides": [1, 1, 1],
            "dilation_rate": [1, 1, 1],
        },
        lambda v: N.conv3d(v["x5"], v["w5"], 1, "VALID"),
    ),
    _one(
        "pad",
        [("x", "a")],
        ["y"],
        {"padding_before": [1, 0], "padding_after": [0, 2], "floating_constant_value": 1.5},
        lambda v: flow.pad(v["a"], [(1, 0), (0, 2)], 1.5),
    ),
    _one(
        "reflection_pad2d",
        [("x", "x4")],
        ["y"],
        {"padding": [1, 2, 2, 1]},
        lambda v: flow.reflection_pad2d(v["x4"], [1, 2, 2, 1]),
    ),
    _one(
        "replication_pad2d",
        [("x", "x4")],
        ["y"],
        {"padding": [0, 1, 1, 0]},
        lambda v: flow.replication_pad2d(v["x4"], [0, 1, 1, 0]),
    ),
    _one(
        "constant_pad2d",
        [("x", "x4")],
        ["y"],
        {"padding": [1, 1, 1, 1], "floating_value": 2.0},
        lambda v: flow.constant_pad2d(v["x4"], [1, 1, 1, 1], 2.0),
    ),
    _one(
        "sigmoid_cross_entropy",
        [("prediction", "a"), ("label", "b")],
        ["loss"],
        {},
        lambda v: N.sigmoid_cross_entropy_with_logits(v["b"], v["a"]),
    ),
    _one(
        "softmax_cross_entropy",
        [("prediction", "a"), ("label", _softmax_b)],
        ["prob", "out"],
        {},
        lambda v: (N.softmax(v["a"]), N.softmax_cross_entropy_with_logits(_softmax_b(v), v["a"])),
    ),
    _one(
        "sparse_softmax_cross_entropy",
        [("prediction", "a"), ("label", "idx2")],
        ["prob", "out"],
        {"depth": 3},
        lambda v: (
            N.softmax(v["a"]),
            N.sparse_softmax_cross_entropy_with_logits(v["idx2"], v["a"]),
        ),
    ),
    _one(
        "sparse_cross_entropy",
        [("prediction", _softmax_b), ("label", "idx2")],
        ["out"],
        {"depth": 3},
        lambda v: N.sparse_cross_entropy(v["idx2"], _softmax_b(v)),
    ),
    _one(
        "smooth_l1_loss",
        [("prediction", "a"), ("label", "b")],
        ["loss"],
        {"beta": 0.2},
        lambda v: flow.experimental.smooth_l1_loss(v["a"], v["b"], 0.2),
    ),
    _one("elu", [("in", "x4")], ["out"], {"alpha": 0.7}, lambda v: N.elu(v["x4"], 0.7)),
    _one("hardsigmoid", [("in", "x4")], ["out"], {}, lambda v: N.hardsigmoid(v["x4"])),
    _one("hardswish", [("in", "x4")], ["out"], {}, lambda v: N.hardswish(v["x4"])),
    _one(
        "hardtanh",
        [("in", "x4")],
        ["out"],
        {"min_val": -0.5, "max_val": 0.25},
        lambda v: N.hardtanh(v["x4"], -0.5, 0.25),
    ),
    _one(
        "dropout",
        [("in", "a"), ("mask", lambda v: flow.cast(M.greater(v["b"], 0.5), flow.int8))],
        ["out"],
        {"scale": 2.0},
        lambda v: v["a"] * flow.cast(M.greater(v["b"], 0.5), flow.float32) * 2.0,
    ),
    _one(
        "layer_norm",
        [("x", "a"), ("gamma", "g3"), ("beta", lambda v: v["g3"] * 0.5)],
        ["y", "mean", "inv_variance"],
        {
            "center": True,
            "scale": True,
            "begin_norm_axis": 1,
            "begin_params_axis": -1,
            "epsilon": 1e-5,
        },
        lambda v: (
            N.layer_norm(v["a"], v["g3"], v["g3"] * 0.5, 1, -1, 1e-5),
            M.reduce_mean(v["a"], axis=1),
            M.rsqrt(M.reduce_variance(v["a"], axis=1) + 1e-5),
        ),
    ),
    _one(
        "gather_nd",
        [("params", "a"), ("indices", "nd")],
        ["out"],
        {},
        lambda v: flow.gather_nd(v["a"], v["nd"]),
    ),
    _one(
        "batch_gather",
        [("in", "a"), ("indices", "idx22")],
        ["out"],
        {},
        lambda v: flow.gather(v["a"], v["idx22"], batch_dims=1),
    ),
    _one(
        "dim_gather",
        [("input", "a"), ("index", "idx22")],
        ["output"],
        {"dim": 1},
        lambda v: flow.dim_gather(v["a"], 1, v["idx22"]),
    ),
    _one(
        "scatter_nd",
        [("indices", lambda v: flow.reshape(v["idx2"], (2, 1))), ("updates", _row_sums)],
        ["out"],
        {"shape": [4]},
        lambda v: flow.scatter_nd(flow.reshape(v["idx2"], (2, 1)), _row_sums(v), [4]),
    ),
    _one(
        "scatter_nd_like",
        [
            ("like", "g3"),
            ("indices", lambda v: flow.reshape(v["idx2"], (2, 1))),
            ("updates", _row_sums),
        ],
        ["out"],
        {},
        lambda v: flow.scatter_nd(flow.reshape(v["idx2"], (2, 1)), _row_sums(v), [3]),
    ),
    _one(
        "tensor_scatter_nd_add",
        [("params", "a"), ("updates", _first_row), ("indices", _one_index)],
        ["out"],
        {},
        lambda v: flow.tensor_scatter_nd_add(v["a"], _one_index(v), _first_row(v)),
    ),
    _one(
        "tensor_scatter_nd_update",
        [("params", "a"), ("updates", _first_row), ("indices", _one_index)],
        ["out"],
        {},
        lambda v: flow.tensor_scatter_nd_update(v["a"], _one_index(v), _first_row(v)),
    ),
    _one(
        "slice",
        [("x", "a")],
        ["y"],
        {"start": [0, 1], "stop": [2, 3], "step": [1, 2]},
        lambda v: flow.slice_v2(v["a"], [[0, 2, 1], [1, 3, 2]]),
    ),
    _one(
        "unsorted_segment_sum",
        [("data", "a"), ("segment_ids", "idx2")],
        ["out"],
        {"axis": 0, "num_segments": 3},
        lambda v: M.unsorted_segment_sum(v["a"], v["idx2"], 3, 0),
    ),
    _one(
        "unsorted_segment_sum_like",
        [("data", "a"), ("segment_ids", "idx2"), ("like", _like33)],
        ["out"],
        {"axis": 0},
        lambda v: M.unsorted_segment_sum_like(v["a"], v["idx2"], _like33(v), 0),
    ),
    _one(
        "unsorted_batch_segment_sum",
        [("data", "a"), ("segment_ids", "ints")],
        ["out"],
        {"num_segments": 4},
        lambda v: M.unsorted_batch_segment_sum(v["a"], v["ints"], 4),
    ),
]
CASES += [
    _one(
        "sparse_softmax_cross_entropy_ms",
        [("prediction", "a"), ("label", "idx2")],
        ["prob", "out"],
        {"depth": 3},
        lambda v: (
            N.softmax(v["a"]),
            N.sparse_softmax_cross_entropy_with_logits(v["idx2"], v["a"]),
        ),
    ),
    _one(
        "sparse_cross_entropy_ms",
        [("prediction", _softmax_b), ("label", "idx2")],
        ["out"],
        {"depth": 3},
        lambda v: N.sparse_cross_entropy(v["idx2"], _softmax_b(v)),
    ),
]
