"""ONNX export: models and op coverage checked under onnxruntime against the flowjob job."""

from __future__ import annotations

from typing import Tuple

import numpy as np
import pytest
from export_zoo import ONEDNN_TOL, assert_within_scale

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.export import ExportError

ort = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")

# onnxruntime runs its own float32 kernels (im2col/Winograd convolutions, blocked matmuls, its
# erf): sums of up to ~800 products are reassociated, so results agree to float32 rounding
# scaled by the magnitude of the partial sums, about 1e-5 relative on these models.
RTOL, ATOL = 1e-4, 1e-5


def run_onnx(path: str, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    assert [i.name for i in sess.get_inputs()] == list(inputs)
    return sess.run(None, inputs)


@pytest.mark.parametrize("name", ["lenet", "mlp", "resnet", "bert"])
def test_models_match_the_job(zoo, tmp_path, name):
    path = flow.onnx.export(zoo.jobs[name], None, str(tmp_path / f"{name}.onnx"))
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    [out] = run_onnx(path, zoo.inputs[name])
    expected = zoo.expected[name]
    assert np.abs(expected).max() > 0.1
    # Deep models: relative to the output's scale (export_zoo.ONEDNN_TOL), against the job
    # with XLA's kernels and with its own (oneDNN's convolutions where installed).
    assert_within_scale(out, zoo.expected_xla[name], RTOL, name)
    assert_within_scale(out, expected, ONEDNN_TOL, name)


def test_variables_from_model_save_dir(zoo, tmp_path):
    """Variables come from the checkpoint given, not from the session."""
    values = {n: b.numpy() for n, b in flow.get_all_variables().items()}
    values["output-bias"] = values["output-bias"] + 1.0  # the MLP's last op adds this bias
    flow.checkpoint.save(str(tmp_path / "ckpt"), values)
    path = flow.onnx.export(
        zoo.jobs["mlp"], str(tmp_path / "ckpt"), str(tmp_path / "m.onnx"), opset=17
    )
    assert onnx.load(path).opset_import[0].version == 17
    [out] = run_onnx(path, zoo.inputs["mlp"])
    np.testing.assert_allclose(out, zoo.expected["mlp"] + 1.0, rtol=RTOL, atol=ATOL)


def test_input_and_output_names(zoo, tmp_path):
    @flow.global_function()
    def named(features: tp.Numpy.Placeholder((2, 3))) -> Tuple[tp.Numpy, tp.Numpy]:
        probs = flow.nn.softmax(features * 2.0, name="probs")
        return probs, flow.math.reduce_max(probs, axis=1, name="top")

    model = onnx.load(flow.onnx.export(named, None, str(tmp_path / "n.onnx")))
    assert [i.name for i in model.graph.input] == ["features"]
    assert [o.name for o in model.graph.output] == ["probs", "top"]
    assert [d.dim_value for d in model.graph.output[1].type.tensor_type.shape.dim] == [2]


def _compare(job, inputs: dict[str, np.ndarray], tmp_path, opset: int = 13) -> None:
    path = flow.onnx.export(job, None, str(tmp_path / "ops.onnx"), opset=opset)
    outs = run_onnx(path, inputs)
    expected = job(*inputs.values())
    assert len(outs) == len(expected)
    for i, (got, want) in enumerate(zip(outs, expected)):
        assert got.dtype == want.dtype, i
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=f"output {i}")


OPSETS = [10, 13, 18]  # OneFlow's default; ours; axes of every reduction as inputs


@pytest.mark.parametrize("opset", OPSETS)
def test_cnn_ops(zoo, tmp_path, opset):
    """Convolutions (NHWC, groups, strides, dilations, explicit pads), pools (ceil mode,
    padding excluded from averages), batch norm on the last axis, CNN activations."""
    init = flow.random_normal_initializer(stddev=0.3)

    @flow.global_function()
    def cnn_ops(x: tp.Numpy.Placeholder((2, 9, 9, 4))) -> Tuple[tp.Numpy, ...]:
        w = flow.get_variable("onnx_ops-w", (8, 3, 3, 2), initializer=init)
        a = flow.nn.conv2d(
            x,
            w,
            strides=2,
            padding=[[0, 0], [1, 2], [2, 1], [0, 0]],
            data_format="NHWC",
            dilations=[1, 2],
            groups=2,
        )
        a = flow.layers.batch_normalization(
            a, axis=-1, training=False, trainable=False, name="onnx_ops-bn"
        )
        nchw = flow.transpose(x, perm=[0, 3, 1, 2])
        w2 = flow.get_variable("onnx_ops-w2", (4, 1, 3, 3), initializer=init)
        dw = flow.nn.relu6(flow.nn.conv2d(nchw, w2, 1, "SAME", groups=4))
        pools = [
            flow.nn.max_pool2d(x, 3, 2, "SAME", data_format="NHWC"),
            flow.nn.avg_pool2d(nchw, 2, 2, "VALID", ceil_mode=True),
            flow.nn.avg_pool2d(dw, 3, 2, "SAME"),
        ]
        acts = [
            flow.nn.hardsigmoid(a),
            flow.nn.hardswish(a),
            flow.nn.leaky_relu(a, 0.1),
            flow.nn.elu(a),
            flow.nn.swish(a, 1.5),
            flow.nn.mish(a),
            flow.math.sigmoid(a),
            flow.math.tanh(a),
            flow.nn.hardtanh(a, -0.5, 0.7),
        ]
        merged = flow.concat([flow.flatten(t, start_dim=1) for t in [*pools, *acts]], axis=1)
        return merged, flow.nn.softmax(flow.math.reduce_mean(a, axis=[1, 2]))

    _compare(
        cnn_ops,
        {"x": np.random.default_rng(3).standard_normal((2, 9, 9, 4)).astype(np.float32)},
        tmp_path,
        opset,
    )


@pytest.mark.parametrize("opset", OPSETS)
def test_elementwise_shape_and_reduce_ops(zoo, tmp_path, opset):
    @flow.global_function()
    def misc_ops(
        x: tp.Numpy.Placeholder((3, 4, 5)), ids: tp.Numpy.Placeholder((3, 2), dtype=flow.int32)
    ) -> Tuple[tp.Numpy, ...]:
        pos = flow.math.abs(x) + 0.1
        table = flow.constant(0.5, dtype=flow.float32, shape=(6, 5)) * flow.get_variable(
            "onnx_ops-table", (6, 5), initializer=flow.random_uniform_initializer(-1, 1)
        )
        emb = flow.gather(table, ids, axis=0)  # (3, 2, 5)
        y = flow.math.add_n([x, x * 2.0, 1.0 - x])
        z = flow.math.maximum(x / pos, flow.math.minimum(x, 0.3)) ** 2.0
        mask = flow.math.greater(x, 0.2)
        picked = flow.where(mask, x, flow.zeros_like(x))
        s = flow.slice(x, [None, 1, 0], [None, 1, 4])
        padded = flow.pad(s, [[0, 0], [1, 0], [0, 2]], constant_value=-1.0)
        mm = flow.matmul(x, flow.transpose(x, perm=[0, 2, 1]), alpha=0.5)
        mm2 = flow.matmul(flow.reshape(x, (12, 5)), np.ones((5, 3), np.float32), transpose_b=False)
        reduced = [
            flow.math.reduce_sum(x, axis=1),
            flow.math.reduce_max(x, axis=[0, 2]),
            flow.math.reduce_min(x, axis=-1, keepdims=True),
            flow.math.reduce_prod(flow.math.sigmoid(x), axis=2),
            flow.math.reduce_mean(x),
        ]
        unary = [
            flow.math.sqrt(pos),
            flow.math.rsqrt(pos),
            flow.math.log(pos),
            flow.math.log1p(pos),
            flow.math.exp(x),
            flow.math.square(x),
            flow.math.gelu(x),
            flow.math.softplus(x),
            flow.math.negative(x),
            flow.clip_by_value(x, -0.5, 0.5),
            flow.nn.log_softmax(x, axis=1),
        ]
        flat = [flow.reshape(t, (3, -1)) for t in (y, z, picked, padded, mm, emb, *unary)]
        compared = [
            flow.math.less_equal(x, 0.1),
            flow.math.greater_equal(x, pos - 1.0),
            flow.math.not_equal(x, x * 0.0),
        ]
        return (
            flow.concat(flat, axis=1),
            flow.cast(mask, flow.int32),
            flow.concat([flow.cast(c, flow.int32) for c in compared], axis=2),
            flow.nn.softmax(x, axis=1),
            flow.math.argmax(x, axis=1),
            flow.expand_dims(flow.squeeze(s, [1]), 0),
            mm2,
            *reduced,
        )

    rng = np.random.default_rng(4)
    _compare(
        misc_ops,
        {
            "x": rng.standard_normal((3, 4, 5)).astype(np.float32),
            "ids": rng.integers(0, 6, (3, 2)).astype(np.int32),
        },
        tmp_path,
        opset,
    )


@pytest.mark.parametrize("opset", OPSETS)
def test_rounding_trigonometric_and_broadcast_ops(zoo, tmp_path, opset):
    @flow.global_function()
    def more_ops(
        x: tp.Numpy.Placeholder((2, 1, 4)), like: tp.Numpy.Placeholder((2, 3, 4))
    ) -> Tuple[tp.Numpy, ...]:
        pos = flow.math.abs(x) + 0.5
        unary = [
            flow.math.floor(x * 3.0),
            flow.math.ceil(x * 3.0),
            flow.math.sin(x),
            flow.math.cos(x),
            flow.math.sign(x),
            flow.math.reciprocal(pos),
            flow.math.pow(pos, x),
            2.0**x,
            pos**0.5,
        ]
        if opset >= 11:  # Round exists from opset 11
            unary.append(flow.math.round(x * 3.0))
        picked = flow.where(flow.math.equal(flow.math.sign(x), 1.0), x, 0.25)
        return (
            flow.concat([*unary, picked], axis=1),
            flow.broadcast_like(x, like, broadcast_axes=[1]),
            flow.broadcast_like(flow.reshape(x, (2, 4)), like, broadcast_axes=[1]),
            flow.expand(x, [2, 3, 4]) + like,
        )

    rng = np.random.default_rng(5)
    # away from .5 after scaling by 3, where rounding modes could differ
    x = (rng.integers(-20, 20, (2, 1, 4)) / 9.0 + 0.01).astype(np.float32)
    _compare(
        more_ops,
        {"x": x, "like": rng.standard_normal((2, 3, 4)).astype(np.float32)},
        tmp_path,
        opset,
    )


def test_unsupported_op_names_op_type_and_source_line(zoo, tmp_path):
    @flow.global_function()
    def sorts(x: tp.Numpy.Placeholder((2, 5))) -> tp.Numpy:
        return flow.sort(x, name="my_sort") + 1.0  # the line the error points at

    line = sorts.fn.__code__.co_firstlineno + 2
    with pytest.raises(ExportError) as info:
        flow.onnx.export(sorts, None, str(tmp_path / "s.onnx"))
    text = str(info.value)
    assert "op 'my_sort'" in text and "in job 'sorts'" in text
    assert "has no ONNX conversion" in text
    assert f'test_onnx.py", line {line}' in text
    assert not (tmp_path / "s.onnx").exists()
    with pytest.raises(ExportError, match="opset 9 is not supported"):
        flow.onnx.export(sorts, None, str(tmp_path / "s.onnx"), opset=9)
    with pytest.raises(ExportError, match="shape_override=.* is not supported"):
        flow.onnx.export(sorts, None, str(tmp_path / "s.onnx"), shape_override={"x": [1, 5]})
