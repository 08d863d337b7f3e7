"""User ops with Python kernels (NumPy on the host, jax.numpy compiled) in train jobs."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp


def np_softsign(x, *, scale):
    return scale * x / (1 + np.abs(x))


def np_softsign_grad(x, y, dy, *, scale):
    return dy * scale / (1 + np.abs(x)) ** 2


def jnp_swish(x, w):
    return x * jax.nn.sigmoid(x * w), jnp.sum(x * w, axis=-1)


def run_train(op_type, x0, w0, inputs, outputs):
    got = {}

    @flow.global_function(type="train")
    def job(a: tp.Numpy.Placeholder(x0.shape)) -> tp.Numpy:
        w = flow.get_variable("w", w0.shape, initializer=flow.constant_initializer(float(w0[0])))
        x = a + flow.math.reduce_sum(w) * 0.0
        b = flow.user_op_builder("py").Op(op_type).Input(inputs[0], [x])
        if len(inputs) > 1:
            b = b.Input(inputs[1], [w])
        for out in outputs:
            b = b.Output(out)
        ys = (
            b.Attr("scale", 1.5).Build().InferAndTryRun().RemoteBlobList()
            if op_type == "np_softsign"
            else b.Build().InferAndTryRun().RemoteBlobList()
        )
        loss = sum(flow.math.reduce_sum(y * y) for y in ys)
        flow.watch(ys[0], lambda v: got.setdefault("y", v))
        flow.watch_diff(x, lambda d: got.setdefault("dx", d))
        flow.watch_diff(w, lambda d: got.setdefault("dw", d))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0])).minimize(loss)
        return loss

    loss = job(x0)
    flow.sync_default_session()
    return loss, got


def test_numpy_kernel_forward_and_backward(fresh_session):
    calls = []

    def forward(x, *, scale):
        calls.append(type(x))  # the host kernel sees NumPy arrays, once per job call
        return np_softsign(x, scale=scale)

    flow.register_python_op(
        "np_softsign", forward, backward=np_softsign_grad, attrs={"scale": None}
    )
    x0 = np.array([[-2.0, -0.5, 0.0, 0.7], [1.0, 3.0, -1.2, 0.1]], np.float32)
    w0 = np.ones((1,), np.float32)
    loss, got = run_train("np_softsign", x0, w0, ["in"], ["out"])
    np.testing.assert_allclose(got["y"], np_softsign(x0, scale=1.5), rtol=1e-6)
    ref = jax.grad(lambda x: jnp.sum((1.5 * x / (1 + jnp.abs(x))) ** 2))(x0)
    np.testing.assert_allclose(got["dx"], ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(loss, np.sum(np_softsign(x0, scale=1.5) ** 2), rtol=1e-5)
    assert calls == [np.ndarray]


def test_jnp_kernel_compiles_into_the_job_with_its_gradient(fresh_session):
    flow.register_python_op(
        "jnp_swish", jnp_swish, inputs=("x", "w"), outputs=("y", "s"), kernel="jax"
    )
    x0 = np.array([[-2.0, -0.5, 0.3], [1.0, 2.0, -1.2]], np.float32)
    w0 = np.full((3,), 0.8, np.float32)
    loss, got = run_train("jnp_swish", x0, w0, ["x", "w"], ["y", "s"])

    def ref_loss(x, w):
        y, s = jnp_swish(x, w)
        return jnp.sum(y * y) + jnp.sum(s * s)

    np.testing.assert_allclose(got["y"], x0 / (1 + np.exp(-x0 * 0.8)), rtol=1e-5)
    dx, dw = jax.grad(ref_loss, argnums=(0, 1))(x0, w0)
    np.testing.assert_allclose(got["dx"], dx, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["dw"], dw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(loss, ref_loss(x0, w0), rtol=1e-5)


def test_jnp_kernel_with_a_python_backward(fresh_session):
    # the user's backward wins over JAX's own derivative: a straight-through estimator
    flow.register_python_op(
        "ste_round", jnp.round, kernel=flow.userop.KernelKind.JAX, backward=lambda x, y, dy: dy
    )
    x0 = np.array([0.2, 1.7, -0.6], np.float32)
    got = {}

    @flow.global_function(type="train")
    def job(a: tp.Numpy.Placeholder(x0.shape)) -> tp.Numpy:
        v = flow.get_variable("v", x0.shape, initializer=flow.zeros_initializer())
        x = a + v
        y = (
            flow.user_op_builder("r")
            .Op("ste_round")
            .Input("in", [x])
            .Output("out")
            .Build()
            .InferAndTryRun()
            .SoleOutputBlob()
        )
        flow.watch_diff(x, lambda d: got.setdefault("dx", d))
        loss = flow.math.reduce_sum(y * 3.0)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0])).minimize(loss)
        return y

    np.testing.assert_array_equal(job(x0), np.round(x0))
    flow.sync_default_session()
    np.testing.assert_allclose(got["dx"], np.full(3, 3.0))


def test_infer_declares_other_shapes_and_dtypes(fresh_session):
    flow.register_python_op(
        "row_argmax",
        lambda x: np.argmax(x, axis=1).astype(np.int32),
        infer=lambda x: ((x.shape[0],), np.int32),
    )
    x = np.random.default_rng(1).standard_normal((4, 6)).astype(np.float32)

    @flow.global_function()
    def job(a: tp.Numpy.Placeholder(x.shape)) -> tp.Numpy:
        return (
            flow.user_op_builder("am")
            .Op("row_argmax")
            .Input("in", [a])
            .Output("out")
            .Build()
            .InferAndTryRun()
            .SoleOutputBlob()
        )

    out = job(x)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, np.argmax(x, axis=1))


def test_wrong_output_shape_names_op_and_shapes(fresh_session):
    flow.register_python_op("bad_shape", lambda x: x[:, :2])
    x = np.zeros((3, 4), np.float32)

    @flow.global_function()
    def job(a: tp.Numpy.Placeholder(x.shape)) -> tp.Numpy:
        return (
            flow.user_op_builder("b")
            .Op("bad_shape")
            .Input("in", [a])
            .Output("out")
            .Build()
            .InferAndTryRun()
            .SoleOutputBlob()
        )

    with pytest.raises(
        Exception,
        match=r"op 'b' \(bad_shape\) in job 'job'.*'out' of shape \(3, 2\), "
        r"expected \(3, 4\)",
    ):
        job(x)


def test_gradient_without_backward_kernel_is_a_clear_error(fresh_session):
    flow.register_python_op("fwd_only", lambda x: x * 2)

    @flow.global_function(type="train")
    def job(a: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        v = flow.get_variable("v", (2,), initializer=flow.zeros_initializer())
        y = (
            flow.user_op_builder("f")
            .Op("fwd_only")
            .Input("in", [a + v])
            .Output("out")
            .Build()
            .InferAndTryRun()
            .SoleOutputBlob()
        )
        loss = flow.math.reduce_sum(y)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1])).minimize(loss)
        return loss

    with pytest.raises(flow.FlowJobError, match="'fwd_only' has no backward kernel"):
        job(np.zeros(2, np.float32))
