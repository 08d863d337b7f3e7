"""What all ops share: the facades, OneFlow's automatic op names, errors that name the op and
the user's line, and the scope helpers."""

from __future__ import annotations

import json

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.graph import namespace


def test_scope_function_desc_split_axis_and_dtype_helpers():
    seen = {}

    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        with flow.scope.placement("cpu", "0:0"), flow.scope.namespace("outer"):
            seen["scope"] = flow.current_scope()
        seen["trainable"] = flow.current_global_function_desc().IsTrainable()
        v = flow.get_variable("v", shape=(3,), initializer=flow.zeros_initializer())
        y = x + v
        seen["split"] = (
            x.split_axis,
            flow.math.reduce_sum(y).split_axis,
            y.with_distribute(flow.distribute.split(1)).split_axis,
        )
        seen["same"] = flow.cast_to_current_logical_view(y) is y
        loss = flow.math.reduce_mean(y)
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0
        ).minimize(loss)
        return loss

    @flow.global_function()
    def predict(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        seen["predict_trainable"] = flow.current_global_function_desc().IsTrainable()
        return x

    train(np.zeros((4, 3), np.float32))
    predict(np.zeros((4, 3), np.float32))
    assert seen["scope"].device_parallel_desc_symbol.device_tag == "cpu"
    assert seen["scope"].scope_op_name_prefixes == ["outer"]
    assert seen["trainable"] is True and seen["predict_trainable"] is False
    assert seen["split"] == (0, flow.INVALID_SPLIT_AXIS, 1)
    assert seen["same"]
    assert flow.convert_oneflow_dtype_to_numpy_dtype(flow.float32) is np.float32
    assert flow.convert_oneflow_dtype_to_numpy_dtype(flow.int8) is np.int8
    with pytest.raises(TypeError, match="flowjob data type"):
        flow.convert_oneflow_dtype_to_numpy_dtype(np.float32)
    with pytest.raises(flow.JobDefinitionError, match="inside the body"):
        flow.current_global_function_desc()
    # OneFlow raised NotImplementedError for a lazy API outside a job (test_oneflow_export.py)
    with pytest.raises(NotImplementedError, match="inside the body"):
        flow.losses.add_loss(None)
    with pytest.raises(NotImplementedError, match="inside the body"):
        flow.get_variable("w", shape=(2,))


def test_facade_exports_the_ops_modules():
    import flowjob._src.ops as ops

    # flow.math, flow.layers, flow.losses, flow.regularizers re-export the ops modules' names
    for public, module in [
        (flow.math, ops.math),
        (flow.layers, ops.layers),
        (flow.losses, ops.losses),
        (flow.regularizers, ops.regularizers),
    ]:
        assert sorted(n for n in dir(public) if not n.startswith("_")) == sorted(module.__all__)
        for name in module.__all__:
            assert getattr(public, name) is getattr(module, name), name
    # flow.nn is ops.nn's namespace plus the imperative module API (flowjob/_src/imperative)
    assert (
        flow.nn.Module is flow._src.imperative.Module and flow.nn.init is flow._src.imperative.init
    )
    for name in ops.nn.__all__:
        assert getattr(flow.nn, name) is getattr(ops.nn, name), name
    for name in ops.array_ops.__all__:
        assert getattr(flow, name) is getattr(ops.array_ops, name), name


def test_automatic_op_names_follow_oneflow_prefixes():
    names = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3)), y: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        names["relu0"] = flow.math.relu(x).op_name
        names["relu1"] = flow.math.relu(x).op_name
        names["named"] = flow.math.relu(x, name="my_relu").op_name
        with namespace("block"):
            names["ns"] = flow.math.sigmoid(x).op_name
        names["scalar"] = (x + 1).op_name
        names["same"] = (x + x).op_name
        names["broadcast"] = (x + y).op_name
        names["mul"] = (x * x).op_name
        names["sum"] = flow.math.reduce_sum(x).op_name
        names["matmul"] = flow.math.matmul(x, x, transpose_b=True).op_name
        return x

    job(np.zeros((2, 3), np.float32), np.zeros(3, np.float32))
    assert names == {
        "relu0": "Relu_0",
        "relu1": "Relu_1",
        "named": "my_relu",
        "ns": "block-Sigmoid_0",
        "scalar": "ScalarAdd_0",
        "same": "AddN_0",
        "broadcast": "broadcast_add_0",
        "mul": "ElementWiseMul_0",
        "sum": "ReduceSum_0",
        "matmul": "Matmul_0",
    }


ARRAY_ERRORS = [
    (lambda x: flow.reshape(x, (4, -1)), ["flow.reshape", "(2, 3)", "6 elements", "(4, -1)"]),
    (lambda x: flow.reshape(x, (-1, -1)), ["at most one dimension may be -1"]),
    (lambda x: flow.transpose(x, perm=[0, 0]), ["flow.transpose", "not a permutation"]),
    (lambda x: flow.concat([x, flow.transpose(x)], axis=0), ["flow.concat", "inputs[1]", "(3, 2)"]),
    (lambda x: flow.squeeze(x, axis=[0]), ["flow.squeeze", "its size is 2, not 1"]),
    (lambda x: flow.slice(x, [0, 1], [2, 4]), ["flow.slice", "size 4 of axis 1"]),
    (lambda x: x[2], ["index 2 is out of range for axis 0 of size 2"]),
    (lambda x: x[x], ["flow.gather"]),
    (lambda x: flow.split(x, 2, axis=1), ["flow.split", "size 3 into 2 equal parts"]),
    (lambda x: flow.gather(x, x), ["flow.gather", "indices must be integers"]),
    (lambda x: flow.pad(x, [(1, 1)]), ["flow.pad", "one (before, after) pair per axis"]),
    (lambda x: flow.one_hot(x, 3), ["flow.one_hot", "indices must be integers"]),
]
MATH_ERRORS = [
    (
        lambda x: flow.math.reduce_sum(x, axis=3),
        [
            "flow.math.reduce_sum",
            "axis 3 is out of range",
            "rank 2",
            "flow.math.reduce_sum(x, axis=3)",
        ],
    ),
    (
        lambda x: flow.math.add(x, np.ones((4,), np.float32)),
        ["flow.math.add", "(2, 3)", "(4,)", "cannot be broadcast", "flow.math.add(x, np.ones("],
    ),
    (
        lambda x: flow.math.matmul(x, x),
        ["flow.matmul", "inner dimensions differ", "flow.math.matmul(x, x)"],
    ),
    (lambda x: flow.math.top_k(x, k=0), ["flow.math.top_k", "k must be an int >= 1"]),
    (lambda x: flow.math.argmax(x, axis=-3, name="am"), ["flow.math.argmax (op 'am')", "axis -3"]),
    (
        lambda x: flow.math.sigmoid(flow.cast(x, flow.int32)),
        ["flow.math.sigmoid", "floating point"],
    ),
]


@pytest.mark.parametrize("body, fragments", ARRAY_ERRORS + MATH_ERRORS)
def test_bad_arguments_raise_op_error_naming_op_and_user_line(body, fragments):
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        return body(x)

    with pytest.raises(flow.OpError) as info:
        job(np.zeros((2, 3), np.float32))
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message
    assert f'File "{__file__}"' in message  # the user's line, not a flowjob-internal one


def test_mode_strings_are_converted_once_and_recorded_as_oneflow_spells_them():
    recorded = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((1, 2, 4, 4))) -> tp.Numpy:
        w = flow.constant(1.0, shape=(3, 2, 3, 3))
        y = flow.nn.conv2d(x, w, strides=1, padding="same", data_format="nchw")
        z = flow.nn.avg_pool2d(y, ksize=2, strides=2, padding="VALID")
        recorded["ops"] = [y.op, z.op]
        return z

    out = job(np.ones((1, 2, 4, 4), np.float32))
    conv, pool = recorded["ops"]
    assert (conv.op_type, pool.op_type) == ("conv2d", "avg_pool_2d")
    # Attributes hold OneFlow's spelling: equal to it, printed and serialized as it.
    for attrs in (conv.attrs, pool.attrs):
        assert attrs["data_format"] == "NCHW" and str(attrs["data_format"]) == "NCHW"
        assert json.dumps(attrs["data_format"]) == '"NCHW"'
    # SAME (any case) pads 1 on each side of a 3x3 kernel: every output sums a full window
    # at the centre; the pool averages 2x2 blocks of the 4x4 map.
    conv_np = np.zeros((1, 3, 4, 4))
    xp = np.pad(np.ones((1, 2, 4, 4)), ((0, 0), (0, 0), (1, 1), (1, 1)))
    for i in range(4):
        for j in range(4):
            conv_np[:, :, i, j] = xp[:, :, i : i + 3, j : j + 3].sum()
    want = conv_np.reshape(1, 3, 2, 2, 2, 2).mean(axis=(3, 5))
    np.testing.assert_allclose(out, want, rtol=1e-6)


@pytest.mark.parametrize("dist", [[], (), None, "B", "S(0),B", ["S(0)"]])
def test_get_variable_takes_every_parallel_distribution_form_oneflow_took(dist):
    """OneFlow v0.4's get_variable turned None into [] and split a string at its commas; an
    empty list (what a model-parallel helper gives on one device) leaves the variable alone."""

    @flow.global_function()
    def job() -> tp.Numpy:
        v = flow.get_variable(
            "v",
            shape=(4, 2),
            initializer=flow.constant_initializer(3.0),
            parallel_distribution=dist,
        )
        return v + 1.0

    np.testing.assert_array_equal(job(), np.full((4, 2), 4.0, np.float32))
