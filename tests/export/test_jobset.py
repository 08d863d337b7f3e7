"""``flow.experimental.get_job_set()``: flowjob's traced jobs as OneFlow v0.4's ``JobSet``.

The field numbers are checked against OneFlow's schema (written out below as numbers, and as
wire bytes built by a separate encoder), so bytes flowjob writes parse with OneFlow's classes.
"""

from __future__ import annotations

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.export import _oneflow_job_pb2 as pb

pytestmark = pytest.mark.usefixtures("fresh_session")


def _ops(job):
    return {op.name: op for op in job.net.op}


def _job(job_set, name):
    (job,) = [j for j in job_set.job if j.job_conf.job_name == name]
    return job


def _predict_job():
    @flow.global_function()
    def classify(images: tp.Numpy.Placeholder((2, 3, 8, 8))) -> tp.Numpy:
        conv = flow.layers.conv2d(images, 4, kernel_size=3, padding="SAME", name="conv")
        relu = flow.nn.relu(conv)
        pool = flow.nn.max_pool2d(relu, ksize=2, strides=2, padding="VALID", name="pool")
        flat = flow.reshape(pool, (2, -1), name="flat")
        dense = flow.layers.dense(flat, 5, name="dense")
        return flow.nn.softmax(dense, name="prob")

    return classify


def test_predict_job_has_oneflows_ops_args_and_blob_names():
    _predict_job()
    job = _job(flow.experimental.get_job_set(), "classify")
    assert job.job_conf.WhichOneof("job_type") == "predict_conf"
    ops = _ops(job)
    kinds = {name: op.WhichOneof("op_type") for name, op in ops.items()}
    assert kinds["images"] == "input_conf"
    assert kinds["conv-weight"] == kinds["conv-bias"] == "variable_conf"
    types = [op.user_conf.op_type_name for op in job.net.op if op.HasField("user_conf")]
    assert types == ["conv2d", "bias_add", "relu", "max_pool_2d", "reshape", "matmul",
                     "bias_add", "softmax"]  # fmt: skip

    conv = ops["conv"].user_conf
    assert dict((k, list(v.s)) for k, v in conv.input.items()) == {
        "in": ["images/out"],
        "weight": ["conv-weight/out"],
    }
    assert list(conv.output["out"].s) == ["conv/out_0"]
    assert list(conv.attr["kernel_size"].at_list_int32.val) == [3, 3]
    assert list(conv.attr["padding_before"].at_list_int32.val) == [1, 1]
    assert conv.attr["data_format"].at_string == "channels_first"
    assert conv.attr["filters"].at_int32 == 4
    pool = ops["pool"].user_conf
    (relu,) = [op for op in job.net.op if op.user_conf.op_type_name == "relu"]
    assert list(relu.user_conf.input["in"].s) == ["conv-bias_add/out_0"]
    assert list(pool.input["x"].s) == list(relu.user_conf.output["out"].s)
    assert list(pool.attr["pool_size"].at_list_int32.val) == [2, 2]
    assert list(ops["flat"].user_conf.attr["shape"].at_shape.dim) == [2, 64]

    # every blob an op reads is described, with its shape and dtype
    descs = job.helper.lbn2logical_blob_desc
    for op in job.net.op:
        if op.HasField("user_conf"):
            for arg in op.user_conf.input.values():
                assert all(lbn in descs for lbn in arg.s), op.name
    assert list(descs["conv/out_0"].shape.dim) == [2, 4, 8, 8]
    assert list(descs["pool/y_0"].shape.dim) == [2, 4, 4, 4]
    assert descs["prob/out_0"].data_type == pb.kFloat
    weight = ops["conv-weight"].variable_conf
    assert list(weight.shape.dim) == [4, 3, 3, 3] and weight.data_type == pb.kFloat
    assert weight.out == "out"
    (ret,) = [op for op in job.net.op if op.HasField("return_conf")]
    assert getattr(ret.return_conf, "in") == "prob/out_0"
    # one placement group: every op on device 0:0 of the CPU
    (group,) = job.placement.placement_group
    assert group.parallel_conf.device_tag == "cpu"
    assert list(group.parallel_conf.device_name) == ["0:0"]
    assert sorted(group.op_set.op_name) == sorted(op.name for op in job.net.op)


def test_gather_slice_layer_norm_use_oneflows_arguments():
    @flow.global_function()
    def misc(x: tp.Numpy.Placeholder((2, 6))) -> tp.Numpy:
        idx = flow.constant(1, dtype=flow.int32, shape=(3,))
        picked = flow.gather(x, idx, axis=1, name="pick")
        part = flow.slice(picked, [None, 0], [None, 2], name="part")
        normed = flow.layers.layer_norm(flow.expand_dims(part, 2, name="wide"), name="norm")
        return normed

    ops = _ops(_job(flow.experimental.get_job_set(), "misc"))
    pick, part = ops["pick"].user_conf, ops["part"].user_conf
    assert sorted(pick.input) == ["in", "indices"] and pick.attr["axis"].at_int64 == 1
    assert list(part.input) == ["x"]
    assert list(part.attr["stop"].at_list_int64.val) == [2, 2]  # None: to the end
    assert ops["wide"].user_conf.attr["axis"].at_int32 == 2
    norm = ops["norm"].user_conf
    assert norm.op_type_name == "layer_norm"
    assert sorted(norm.input) == ["beta", "gamma", "x"]
    assert sorted(norm.output) == ["inv_variance", "mean", "y"]
    assert norm.attr["center"].at_bool and norm.attr["scale"].at_bool


def test_placement_groups_follow_placement_scopes():
    @flow.global_function()
    def placed(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        with flow.scope.placement("cpu", "0:0-1"):
            y = flow.math.relu(x, name="wide")
        return flow.math.square(y, name="narrow")

    job = _job(flow.experimental.get_job_set(), "placed")
    groups = {
        tuple(g.parallel_conf.device_name): set(g.op_set.op_name)
        for g in job.placement.placement_group
    }
    assert "wide" in groups[("0:0-1",)]  # OneFlow's "machine:first-last" spelling
    assert "narrow" in groups[("0:0",)]


def test_train_job_conf_names_losses_and_optimizer():
    @flow.global_function(type="train")
    def fit(x: tp.Numpy.Placeholder((4, 3)), y: tp.Numpy.Placeholder((4, 1))) -> tp.Numpy:
        w = flow.get_variable("w", (3, 1), initializer=flow.zeros_initializer())
        step = flow.get_variable(
            "step", (1,), dtype=flow.int64, initializer=flow.zeros_initializer(), trainable=False
        )
        loss = flow.math.reduce_mean(flow.math.square(flow.matmul(x, w) - y), name="loss")
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.25])).minimize(loss)
        return loss + flow.cast(step, flow.float) * 0

    job = _job(flow.experimental.get_job_set(), "fit")
    train = job.job_conf.train_conf
    assert job.job_conf.WhichOneof("job_type") == "train_conf"
    assert list(train.loss_lbn) == ["loss/out_0"]
    (opt,) = train.optimizer_conf
    assert list(opt.variable_op_names) == ["w"]
    assert opt.base_learning_rate == pytest.approx(0.25)
    # OneFlow's SGD has momentum 0.9 unless told otherwise: its momentum update
    assert opt.WhichOneof("normal_mdupdt") == "momentum_conf"
    assert opt.momentum_conf.beta == pytest.approx(0.9)
    ops = _ops(job)
    # reduce_mean is OneFlow's reduce_sum and a scalar multiplication by 1/count
    total = ops["loss-reduce_sum"].user_conf
    assert total.op_type_name == "reduce_sum"
    assert list(total.attr["axis"].at_list_int32.val) == [0, 1]
    mean = ops["loss"].user_conf
    assert mean.op_type_name == "scalar_mul"
    assert list(mean.input["in"].s) == ["loss-reduce_sum/output_tensor_0"]
    assert mean.attr["float_operand"].at_double == pytest.approx(1 / 4)
    step = ops["step"].variable_conf
    assert step.data_type == pb.kInt64 and not step.trainable
    subtract = [op for op in job.net.op if op.user_conf.op_type_name == "broadcast_sub"]
    assert [sorted(op.user_conf.input) for op in subtract] == [["x", "y"]]


def _run_job_proto(job, feeds):
    """An independent NumPy reading of a ``Job``'s ops (those used below), by OneFlow's
    meanings of their op types, arguments and attributes."""
    values = dict(feeds)

    def attr(conf, key):
        value = conf.attr[key]
        kind = value.WhichOneof("value")
        field = getattr(value, kind)
        return list(field.dim) if kind == "at_shape" else getattr(field, "val", field)

    def scalar(conf):
        return (
            attr(conf, "int_operand")
            if attr(conf, "has_int_operand")
            else attr(conf, "float_operand")
        )

    for op in job.net.op:
        if op.HasField("input_conf"):
            continue
        if op.HasField("return_conf"):
            values[f"{op.name}/out"] = values[getattr(op.return_conf, "in")]
            continue
        conf = op.user_conf
        ins = {arg: values[v.s[0]] for arg, v in conf.input.items()}
        kind = conf.op_type_name
        if kind == "constant":
            out = np.full(attr(conf, "shape"), attr(conf, "floating_value"), np.float32)
        elif kind == "negative":
            out = -ins["x"]
        elif kind == "scalar_add":
            out = ins["in"] + scalar(conf)
        elif kind == "scalar_mul":
            out = ins["in"] * scalar(conf)
        elif kind == "broadcast_div":
            out = ins["x"] / ins["y"]
        elif kind == "broadcast_add":
            out = ins["x"] + ins["y"]
        elif kind == "reduce_sum":
            out = ins["input_tensor"].sum(
                tuple(attr(conf, "axis")), keepdims=attr(conf, "keepdims")
            )
        elif kind == "transpose":
            out = ins["input"].transpose(list(attr(conf, "perm")))
        elif kind == "softmax":  # over the last axis
            e = np.exp(ins["in"] - ins["in"].max(-1, keepdims=True))
            out = e / e.sum(-1, keepdims=True)
        else:
            raise AssertionError(f"op type {kind} not expected here")
        (out_arg,) = conf.output.values()
        values[out_arg.s[0]] = out.astype(np.float32)
    (ret,) = [op for op in job.net.op if op.HasField("return_conf")]
    return values[f"{ret.name}/out"]


def test_composed_ops_compute_what_the_job_computes():
    """Scalar subtraction/division, reduce_mean and softmax over axis 0 are OneFlow's
    compositions; read back by OneFlow's op meanings they give the job's result."""

    @flow.global_function()
    def mix(x: tp.Numpy.Placeholder((3, 4))) -> tp.Numpy:
        a = (x - 2.0) + (3.0 - x) * 0.5
        b = x / 4.0 + 6.0 / x
        mean = flow.math.reduce_mean(a + b, axis=[1], keepdims=True)
        return flow.nn.softmax(a + b + mean, axis=0)

    x = np.random.default_rng(1).uniform(1.0, 2.0, (3, 4)).astype(np.float32)
    job = _job(flow.experimental.get_job_set(), "mix")
    types = {op.user_conf.op_type_name for op in job.net.op if op.HasField("user_conf")}
    assert {"negative", "constant", "broadcast_div", "reduce_sum", "transpose"} <= types
    got = _run_job_proto(job, {"x/out": x})
    np.testing.assert_allclose(got, mix(x), rtol=1e-5, atol=1e-6)


def test_job_set_round_trips_through_bytes():
    _predict_job()
    job_set = flow.experimental.get_job_set()
    data = job_set.SerializeToString()
    again = pb.JobSet()
    again.ParseFromString(data)
    assert again == job_set
    deterministic = again.SerializeToString(deterministic=True)  # map entries sorted by key
    assert deterministic == job_set.SerializeToString(deterministic=True)


def test_tools_reach_it_through_oneflows_module_paths():
    """What oneflow-onnx and similar tools import, under the ``oneflow`` alias."""
    import importlib

    from flowjob import compat

    _predict_job()
    with compat.aliased():
        oneflow = importlib.import_module("oneflow")
        job_set_pb2 = importlib.import_module("oneflow.core.job.job_set_pb2")
        user_op_conf_pb2 = importlib.import_module("oneflow.core.framework.user_op_conf_pb2")
        job_set = oneflow.experimental.get_job_set()
        parsed = job_set_pb2.JobSet.FromString(oneflow._oneflow_internal.GetSerializedJobSet())
        assert parsed == job_set
        conv = _ops(parsed.job[0])["conv"].user_conf
        assert isinstance(conv, user_op_conf_pb2.UserOpConf)
        dtype_of = oneflow._oneflow_internal.deprecated.GetProtoDtype4OfDtype
        assert (
            dtype_of(oneflow.float32)
            == parsed.job[0].helper.lbn2logical_blob_desc["conv/out_0"].data_type
        )


def test_dtype_enum_values_are_oneflows():
    from flowjob._src.compat.legacy._oneflow_internal import deprecated

    expected = {"float32": 2, "float64": 3, "int8": 4, "int32": 5, "int64": 6, "uint8": 7,
                "float16": 9}  # fmt: skip
    for name, value in expected.items():
        dtype = getattr(flow, name)
        assert deprecated.GetProtoDtype4OfDtype(dtype) == value
        assert deprecated.GetDTypeByDataType(value) is dtype
        assert pb.DataType.Value(dtype.oneflow_enum) == value


# (message, field, number) of OneFlow v0.4's schema (oneflow/core/**/*.proto)
FIELD_NUMBERS = [
    ("JobSet", "job", 1),
    ("Job", "net", 1), ("Job", "placement", 2), ("Job", "job_conf", 3), ("Job", "helper", 5),
    ("DLNetConf", "op", 1),
    ("OperatorConf", "name", 1), ("OperatorConf", "device_tag", 4),
    ("OperatorConf", "ctrl_in_op_name", 7), ("OperatorConf", "scope_symbol_id", 8),
    ("OperatorConf", "variable_conf", 122), ("OperatorConf", "input_conf", 137),
    ("OperatorConf", "return_conf", 146), ("OperatorConf", "user_conf", 199),
    ("UserOpConf", "op_type_name", 1), ("UserOpConf", "input", 2), ("UserOpConf", "output", 3),
    ("UserOpConf", "attr", 4),
    ("AttrValue", "at_int32", 1), ("AttrValue", "at_int64", 2), ("AttrValue", "at_bool", 3),
    ("AttrValue", "at_float", 4), ("AttrValue", "at_double", 5), ("AttrValue", "at_string", 6),
    ("AttrValue", "at_shape", 7), ("AttrValue", "at_data_type", 8),
    ("AttrValue", "at_list_int32", 9), ("AttrValue", "at_list_int64", 10),
    ("AttrValue", "at_list_float", 11), ("AttrValue", "at_list_data_type", 12),
    ("AttrValue", "at_list_shape", 13), ("AttrValue", "at_list_string", 14),
    ("ShapeProto", "dim", 1),
    ("BlobDescProto", "shape", 1), ("BlobDescProto", "data_type", 2),
    ("BlobDescProto", "is_dynamic", 3),
    ("JobHelperConf", "lbn2logical_blob_desc", 4),
    ("InputOpConf", "tick", 1), ("InputOpConf", "out", 2), ("InputOpConf", "blob_conf", 3),
    ("InterfaceBlobConf", "shape", 1), ("InterfaceBlobConf", "data_type", 2),
    ("InterfaceBlobConf", "is_dynamic", 3),
    ("ReturnOpConf", "in", 1), ("ReturnOpConf", "out", 2),
    ("VariableOpConf", "tick", 1), ("VariableOpConf", "out", 2), ("VariableOpConf", "shape", 3),
    ("VariableOpConf", "data_type", 4), ("VariableOpConf", "model_name", 7),
    ("VariableOpConf", "random_seed", 9), ("VariableOpConf", "trainable", 11),
    ("JobConfigProto", "job_name", 1), ("JobConfigProto", "train_conf", 3),
    ("JobConfigProto", "predict_conf", 4), ("JobConfigProto", "default_data_type", 8),
    ("TrainConf", "optimizer_conf", 1), ("TrainConf", "loss_lbn", 2),
    ("OptimizerConf", "variable_op_names", 1), ("OptimizerConf", "base_learning_rate", 2),
    ("OptimizerConf", "naive_conf", 1000), ("OptimizerConf", "momentum_conf", 1001),
    ("OptimizerConf", "adam_conf", 1004),
    ("ParallelConf", "device_name", 1), ("ParallelConf", "device_tag", 2),
    ("Placement", "placement_group", 1),
]  # fmt: skip


@pytest.mark.parametrize(("message", "field", "number"), FIELD_NUMBERS)
def test_field_numbers_are_oneflows(message, field, number):
    assert getattr(pb, message).DESCRIPTOR.fields_by_name[field].number == number


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number: int, payload: bytes | int) -> bytes:
    """A length-delimited field (bytes) or a varint field (int)."""
    if isinstance(payload, int):
        return _varint(number << 3) + _varint(payload)
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def test_serialized_bytes_match_the_wire_format_of_oneflows_schema():
    job_set = pb.JobSet()
    op = job_set.job.add().net.op.add()
    op.name = "relu"
    op.user_conf.op_type_name = "relu"
    op.user_conf.input["in"].s.append("x/out")
    op.user_conf.attr["axis"].at_int32 = 3
    var = job_set.job[0].net.op.add()
    var.name = "w"
    var.variable_conf.out = "out"
    var.variable_conf.shape.dim.extend([2, 300])
    var.variable_conf.data_type = pb.kFloat

    entry = lambda key, value: _field(1, key) + _field(2, value)  # noqa: E731 - map entry
    user = (
        _field(1, b"relu")
        + _field(2, entry(b"in", _field(1, b"x/out")))
        + _field(4, entry(b"axis", _field(1, 3)))
    )
    shape = _field(1, 2) + _field(1, 300)  # proto2: repeated scalars are not packed
    variable = _field(2, b"out") + _field(3, shape) + _field(4, 2)
    expected = _field(
        1,
        _field(
            1,
            _field(1, _field(1, b"relu") + _field(199, user))
            + _field(1, _field(1, b"w") + _field(122, variable)),
        ),
    )
    assert job_set.SerializeToString(deterministic=True) == expected
    assert pb.JobSet.FromString(expected) == job_set


def test_dynamic_batch_size_export_runs_at_other_batch_sizes(tmp_path):
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    job = _predict_job()
    rng = np.random.default_rng(0)
    path = flow.onnx.export(job, onnx_filename=tmp_path / "m.onnx", dynamic_batch_size=True)
    model = onnx.load(path)
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    assert model.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    x = rng.standard_normal((6, 3, 8, 8)).astype(np.float32)
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    (got,) = session.run(None, {model.graph.input[0].name: x})
    want = np.concatenate([job(x[i : i + 2]) for i in range(0, 6, 2)])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    fixed = flow.onnx.export(job, onnx_filename=tmp_path / "f.onnx")
    assert onnx.load(fixed).graph.input[0].type.tensor_type.shape.dim[0].dim_value == 2


def test_generated_module_is_protoc_output_of_the_schema(tmp_path):
    """_oneflow_job_pb2.py is what the documented command makes from oneflow_job.proto."""
    import subprocess
    import sys

    from flowjob._src.export import _regen_oneflow_job as regen

    command = regen.protoc_command(None)
    if command is None:
        pytest.skip("no protoc: pip install grpcio-tools==1.62.3 (or put protoc 25.1 on PATH)")
    version = subprocess.run([*command, "--version"], capture_output=True, text=True).stdout
    if "libprotoc 25.1" not in version:  # other versions write other code
        pytest.skip(f"the committed file is libprotoc 25.1's output; this is {version.strip()}")
    done = subprocess.run(
        [sys.executable, "-m", "flowjob._src.export._regen_oneflow_job", "--output", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / regen.GENERATED.name).read_text() == regen.GENERATED.read_text()
