"""``flowjob/_src/ops/_linalg.py``: matmul, bias_add and the matrix helpers."""

from __future__ import annotations

from typing import Tuple

import numpy as np
from ops_helpers import uniform

import flowjob as flow
import flowjob.typing as tp


def test_matmul_transposes_batches_and_constants():
    a, b = uniform(3, 4), uniform(5, 4, seed=1)
    ba, bb = uniform(2, 3, 4, seed=2), uniform(2, 4, 5, seed=3)
    const = uniform(4, 2, seed=4).astype(np.float64)

    @flow.global_function()
    def job(
        a: tp.Numpy.Placeholder((3, 4)),
        b: tp.Numpy.Placeholder((5, 4)),
        ba: tp.Numpy.Placeholder((2, 3, 4)),
        bb: tp.Numpy.Placeholder((2, 4, 5)),
    ) -> Tuple[(tp.Numpy,) * 7]:
        return (
            flow.math.matmul(a, b, transpose_b=True),
            flow.matmul(a, a, transpose_a=True),
            flow.math.matmul(ba, bb),
            flow.math.matmul(bb, ba, transpose_a=True, transpose_b=True),
            ba @ const,
            flow.math.matmul(const.T, a, transpose_b=True),
            flow.math.add_n([a, a, a]),
        )

    ab_t, ba_tt, bmm, bmm_tt, with_const, const_left, tripled = job(a, b, ba, bb)
    np.testing.assert_allclose(ab_t, a @ b.T, rtol=1e-5)
    np.testing.assert_allclose(ba_tt, a.T @ a, rtol=1e-5)
    np.testing.assert_allclose(bmm, ba @ bb, rtol=1e-5)
    np.testing.assert_allclose(bmm_tt, np.swapaxes(bb, 1, 2) @ np.swapaxes(ba, 1, 2), rtol=1e-5)
    assert with_const.dtype == np.float32
    np.testing.assert_allclose(with_const, ba @ const.astype(np.float32), rtol=1e-5)
    np.testing.assert_allclose(const_left, const.T.astype(np.float32) @ a.T, rtol=1e-5)
    np.testing.assert_allclose(tripled, 3 * a, rtol=1e-6)


def test_matmul_alpha_scales():
    a, b = uniform(3, 4), uniform(4, 2, seed=1)

    @flow.global_function()
    def job(a: tp.Numpy.Placeholder((3, 4)), b: tp.Numpy.Placeholder((4, 2))) -> tp.Numpy:
        return flow.math.matmul(a, b, alpha=0.5)

    np.testing.assert_allclose(job(a, b), 0.5 * (a @ b), rtol=1e-5)


def test_bias_add_on_channel_axis():
    rng = np.random.default_rng(0)
    x4, x2 = (
        rng.standard_normal((2, 3, 4, 5)).astype(np.float32),
        rng.standard_normal((2, 3)).astype(np.float32),
    )
    b3, b5 = np.arange(3, dtype=np.float32), np.arange(5, dtype=np.float32)

    @flow.global_function()
    def job(
        x4: tp.Numpy.Placeholder((2, 3, 4, 5)),
        x2: tp.Numpy.Placeholder((2, 3)),
        b3: tp.Numpy.Placeholder((3,)),
        b5: tp.Numpy.Placeholder((5,)),
    ) -> Tuple[(tp.Numpy,) * 4]:
        return (
            flow.nn.bias_add(x4, b3),
            flow.nn.bias_add(x4, b3, "NCHW"),
            flow.nn.bias_add(x4, b5, "NHWC"),
            flow.nn.bias_add(x2, b3),
        )

    default, nchw, nhwc, two_d = job(x4, x2, b3, b5)
    np.testing.assert_allclose(default, x4 + b3[:, None, None])
    np.testing.assert_allclose(nchw, x4 + b3[:, None, None])
    np.testing.assert_allclose(nhwc, x4 + b5)
    np.testing.assert_allclose(two_d, x2 + b3)


def _optimized_program(job, *args) -> str:
    """The optimized HLO of ``job``'s compiled program (called once with ``args``)."""
    job(*args)
    session = job.session
    entry = session.compiled_job(job)
    lowered = entry.lowered
    state = session.state.for_call(lowered)
    inputs = tuple(args[i] for i in lowered.device_inputs)
    return lowered.fn.lower(state, inputs, 0).compile().as_text()


def test_batch_one_dense_reads_its_weight_in_place():
    # A dense layer's product contracts the weight's own input axis: written as a transpose
    # then a product, XLA:CPU copied the whole transposed weight on every batch-1 call (the
    # bias add fused into the product wants it row-major), 3x the MLP's predict call.
    x = uniform(1, 784)

    @flow.global_function(type="predict")
    def job(x: tp.Numpy.Placeholder((1, 784))) -> tp.Numpy:
        return flow.layers.dense(
            x, 512, activation=flow.nn.relu, kernel_initializer=flow.random_normal_initializer(),
            bias_initializer=flow.random_normal_initializer(), name="fc",
        )  # fmt: skip

    text = _optimized_program(job, x)
    assert "f32[784,512]" not in text  # no transposed copy of the (512, 784) weight
    values = flow.get_all_variables()
    weight, bias = values["fc-weight"].numpy(), values["fc-bias"].numpy()
    np.testing.assert_allclose(job(x), np.maximum(x @ weight.T + bias, 0), rtol=1e-5, atol=1e-5)


def test_bias_add_half_precision_bias_gradient_sums_in_float32():
    """3,000 float16 ones summed in float16 stop near 2,048; OneFlow's and TensorFlow's
    kernels (and so this op) accumulate the bias gradient in float32."""
    value = np.ones((30, 20, 5, 10), np.float32)
    got = {}

    @flow.global_function(type="train")
    def job(v: tp.Numpy.Placeholder(value.shape), b: tp.Numpy.Placeholder((10,))) -> tp.Numpy:
        b = b + flow.get_variable("b0", (1,), initializer=flow.zeros_initializer())
        y = flow.nn.bias_add(flow.cast(v, flow.float16), flow.cast(b, flow.float16), "NHWC")
        loss = flow.cast(y, flow.float)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0])).minimize(loss)
        flow.watch_diff(b, lambda d: got.setdefault("b", d))
        return loss

    out = job(value, np.full(10, 0.5, np.float32))
    np.testing.assert_array_equal(out, np.full(value.shape, 1.5))
    np.testing.assert_array_equal(got["b"], np.full(10, value.size // 10, np.float32))
