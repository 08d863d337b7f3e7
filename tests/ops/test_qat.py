"""Quantization-aware training (``func_config.enable_qat``, ``flowjob/_src/ops/_qat.py``): a QAT
job's outputs against NumPy convolutions and products of fake-quantized inputs, weights and
biases, following OneFlow v0.4's QuantAwareTraining pass."""

from __future__ import annotations

import numpy as np
import pytest
from ops_helpers import FixedInit, np_conv2d, sgd, uniform, variables
from test_quantization import np_fake_quant, np_observer

import flowjob as flow
import flowjob.typing as tp

PADS = ((1, 1), (1, 1))
W1, B1, W2, B2 = (
    uniform(*s, seed=i, low=-0.5, high=0.5)
    for i, s in enumerate([(4, 3, 3, 3), (4,), (4, 4, 3, 3), (4,)])
)


def qat_config(symmetric, per_channel, backend, stop_after=1000):
    config = flow.FunctionConfig()
    config.enable_qat(True)
    config.qat.symmetric(symmetric)
    config.qat.per_channel_weight_quantization(per_channel)
    config.qat.moving_min_max_stop_update_after_iters(stop_after)
    config.qat.target_backend(backend)
    return config


def conv_job(config):
    @flow.global_function(type="train", function_config=config)
    def job(x: tp.Numpy.Placeholder((2, 3, 5, 5))) -> tp.Numpy:
        y = flow.layers.conv2d(
            x,
            4,
            3,
            1,
            "SAME",
            kernel_initializer=FixedInit(W1),
            bias_initializer=FixedInit(B1),
            name="conv1",
        )
        with flow.experimental.scope.config(quantization_aware_training=False):
            z = flow.layers.conv2d(
                y,
                4,
                3,
                1,
                "SAME",
                kernel_initializer=FixedInit(W2),
                bias_initializer=FixedInit(B2),
                name="conv2",
            )
        sgd(0.0).minimize(z)
        return z

    return job


def np_qat_conv(x, symmetric, per_channel, backend):
    scheme = "symmetric" if symmetric else "affine"
    formula = "cambricon" if backend == "cambricon" else "google"

    def quantize(a, per_layer=True):
        scale, zero = np_observer(a, 8, scheme, formula, per_layer)
        return np_fake_quant(a, scale, zero, 8, scheme, formula), scale

    qx, sx = quantize(x.astype(np.float64))
    qw, sw = quantize(W1, not per_channel)
    qb = np_fake_quant(B1, sx * sw, np.zeros_like(sw), 8, scheme, formula)
    y = np_conv2d(qx, qw, (1, 1), PADS) + qb.reshape(1, -1, 1, 1)
    if backend != "cambricon":  # "" quantizes int8 outputs; the second conv's scope is off
        y, _ = quantize(y)
    return np_conv2d(y, W2, (1, 1), PADS) + B2.reshape(1, -1, 1, 1)


@pytest.mark.parametrize(
    "symmetric, per_channel, backend",
    [
        (True, False, ""),
        (False, False, ""),
        (True, True, ""),
        (False, True, ""),
        (True, False, "cambricon"),
        (False, False, "cambricon"),
    ],
)
def test_conv_layers_match_numpy_of_fake_quantized_operands(symmetric, per_channel, backend):
    x = uniform(2, 3, 5, 5, seed=9)
    out = conv_job(qat_config(symmetric, per_channel, backend))(x.astype(np.float32))
    want = np_qat_conv(x.astype(np.float32), symmetric, per_channel, backend)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-5)
    # the quantization changes the result: plain convolutions differ
    plain = np_conv2d(np_conv2d(x, W1, (1, 1), PADS) + B1.reshape(1, -1, 1, 1), W2, (1, 1), PADS)
    assert np.abs(plain + B2.reshape(1, -1, 1, 1) - out).max() > 1e-3


def test_without_qat_the_job_is_plain():
    x = uniform(2, 3, 5, 5, seed=9)
    out = conv_job(flow.FunctionConfig())(x.astype(np.float32))
    y = np_conv2d(x, W1, (1, 1), PADS) + B1.reshape(1, -1, 1, 1)
    np.testing.assert_allclose(
        out, np_conv2d(y, W2, (1, 1), PADS) + B2.reshape(1, -1, 1, 1), rtol=1e-4, atol=1e-5
    )


def test_matmul_output_is_quantized_and_moving_ranges_stop_updating():
    w = uniform(3, 6, seed=3)

    @flow.global_function(type="train", function_config=qat_config(True, False, "", 0))
    def job(x: tp.Numpy.Placeholder((4, 6))) -> tp.Numpy:
        v = flow.get_variable("w", shape=(3, 6), initializer=FixedInit(w))
        y = flow.matmul(x, v, transpose_b=True, name="mm")
        sgd(0.0).minimize(y)
        return y

    def quantize(a, scale):
        return np_fake_quant(a, scale, np.zeros(1), 8, "symmetric", "google")

    sw, _ = np_observer(w, 8, "symmetric", "google")
    first = uniform(4, 6, seed=1).astype(np.float32)
    sx, _ = np_observer(first.astype(np.float64), 8, "symmetric", "google")
    y = quantize(first, sx) @ quantize(w, sw).T
    sy, _ = np_observer(y, 8, "symmetric", "google")
    np.testing.assert_allclose(job(first), quantize(y, sy), rtol=1e-4, atol=1e-6)
    # stop_update_after_iters=0: step 1 keeps the first call's ranges
    second = first * 3
    out = job(second)
    y2 = quantize(second, sx) @ quantize(w, sw).T
    np.testing.assert_allclose(out, quantize(y2, sy), rtol=1e-4, atol=1e-6)
    moving = variables()["mm-out-fake-quant-observer-moving_max"]
    np.testing.assert_allclose(moving, [sy[0] * 127], rtol=1e-6)


def test_qat_needs_the_stop_update_setting():
    config = flow.FunctionConfig()
    config.enable_qat(True)

    @flow.global_function(function_config=config)
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        return flow.matmul(x, x, transpose_b=True)

    with pytest.raises(flow.OpError, match="moving_min_max_stop_update_after_iters"):
        job(np.ones((2, 3), np.float32))


def test_scope_config_rejects_unknown_attributes():
    with pytest.raises(ValueError, match="quantization_aware_training"):
        with flow.experimental.scope.config(quantisation=False):
            pass
    with pytest.raises(ValueError, match="target_backend"):
        flow.FunctionConfig().qat.target_backend("tpu")


@pytest.mark.parametrize("attrs", [{"checkpointing": True}, {"pipeline_stage_id_hint": 1}])
def test_scope_config_takes_oneflow_v040s_other_attributes_without_changing_values(attrs):
    """OneFlow v0.4 registered ``checkpointing`` (recompute in the backward pass, for memory)
    and ``pipeline_stage_id_hint``: a train step inside them is the plain SGD step."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3) / 10

    @flow.global_function(type="train")
    def step(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        with flow.experimental.scope.config(**attrs):
            w = flow.get_variable("w", shape=(3, 1), initializer=flow.constant_initializer(1.0))
            loss = flow.math.reduce_sum(flow.matmul(x, w) ** 2)
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0
        ).minimize(loss)
        return loss

    w = np.ones((3, 1), np.float32)
    for _ in range(2):
        np.testing.assert_allclose(step(x), np.sum((x @ w) ** 2), rtol=1e-6)
        w = w - 0.1 * 2 * x.T @ (x @ w)
