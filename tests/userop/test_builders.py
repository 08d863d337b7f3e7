"""flow.user_op_builder and kin: each mapped op type against NumPy, gradients against jax.grad."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob.userop import UnknownOpTypeError, known_op_types
from tests.userop.builder_helpers import build

RNG = np.random.default_rng(0)


def run_unary(op_type, arg_in, arg_out, x, attrs=None):
    @flow.global_function()
    def job(a: tp.Numpy.Placeholder(x.shape)) -> tp.Numpy:
        return build(op_type, "op", [(arg_in, [a])], [arg_out], attrs)[0]

    return job(x)


UNARY = [
    ("relu", "in", "out", lambda x: np.maximum(x, 0)),
    ("sigmoid", "in", "out", lambda x: 1 / (1 + np.exp(-x))),
    ("ccrelu", "in", "out", lambda x: np.maximum(x, 0)),
    ("tanh", "x", "y", np.tanh),
    ("exp", "x", "y", np.exp),
    ("square", "x", "y", np.square),
    ("negative", "x", "y", np.negative),
    ("abs", "x", "y", np.abs),
    ("softmax", "in", "out", lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True)),
    ("identity", "in", "out", lambda x: x),
]


@pytest.mark.parametrize("op_type,arg_in,arg_out,ref", UNARY, ids=[u[0] for u in UNARY])
def test_unary_op_types_match_numpy(fresh_session, op_type, arg_in, arg_out, ref):
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(run_unary(op_type, arg_in, arg_out, x), ref(x), rtol=1e-5, atol=1e-6)


def test_shape_and_cast_op_types(fresh_session):
    x = RNG.standard_normal((2, 6)).astype(np.float32)
    np.testing.assert_array_equal(
        run_unary("reshape", "in", "out", x, {"shape": [3, 4]}), x.reshape(3, 4)
    )
    np.testing.assert_array_equal(
        run_unary("TestReshape", "in", "out", x, {"shape": [4, 3]}), x.reshape(4, 3)
    )
    np.testing.assert_array_equal(
        run_unary("transpose", "input", "output", x, {"perm": [1, 0]}), x.T
    )
    np.testing.assert_array_equal(run_unary("expand_dims", "in", "out", x, {"axis": 1}), x[:, None])
    out = run_unary("cast", "in", "out", x, {"dtype": flow.int32})
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, x.astype(np.int32))
    out = run_unary("TestDataTypeAttr", "in", "out", x, {"output_type": flow.double})
    assert out.dtype == np.float64
    np.testing.assert_allclose(
        run_unary("scalar_add", "in", "out", x, {"has_float_operand": True, "float_operand": 2.5}),
        x + 2.5,
    )
    np.testing.assert_allclose(
        run_unary("scalar_mul", "in", "out", x, {"has_int_operand": True, "int_operand": 3}), x * 3
    )
    np.testing.assert_allclose(
        run_unary("leaky_relu", "x", "y", x, {"alpha": 0.1}), np.where(x > 0, x, 0.1 * x), rtol=1e-6
    )


def test_binary_and_multi_input_op_types(fresh_session):
    a = RNG.standard_normal((3, 4)).astype(np.float32)
    b = RNG.standard_normal((4, 5)).astype(np.float32)
    c = RNG.standard_normal((3, 4)).astype(np.float32)

    @flow.global_function()
    def job(
        a_: tp.Numpy.Placeholder(a.shape),
        b_: tp.Numpy.Placeholder(b.shape),
        c_: tp.Numpy.Placeholder(c.shape),
    ):
        mm = build("matmul", "mm", [("a", [a_]), ("b", [b_])], attrs={"alpha": 2.0})[0]
        add = build("broadcast_add", "badd", [("x", [a_]), ("y", [c_])], ["z"])[0]
        addn = build("add_n", "addn", [("in", [a_, c_, a_])])[0]
        cat = build("concat", "cat", [("in", [a_, c_])], attrs={"axis": 1})[0]
        sq = build("multi_square_sum", "mss", [("x", [a_, c_])], ["y"])[0]
        return mm, add, addn, cat, sq

    mm, add, addn, cat, sq = (r.numpy() for r in job(a, b, c).get())
    np.testing.assert_allclose(mm, 2 * a @ b, rtol=1e-5)
    np.testing.assert_allclose(add, a + c)
    np.testing.assert_allclose(addn, 2 * a + c, rtol=1e-6)
    np.testing.assert_array_equal(cat, np.concatenate([a, c], 1))
    np.testing.assert_allclose(sq, [np.sum(a**2) + np.sum(c**2)], rtol=1e-5)


def test_conv2d_op_type_matches_jax(fresh_session):
    x = RNG.standard_normal((2, 3, 8, 8)).astype(np.float32)
    w = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)

    @flow.global_function()
    def job(x_: tp.Numpy.Placeholder(x.shape), w_: tp.Numpy.Placeholder(w.shape)) -> tp.Numpy:
        return build(
            "conv2d",
            "conv",
            [("in", [x_]), ("weight", [w_])],
            attrs={
                "filters": 4,
                "padding_before": [1, 1],
                "data_format": "channels_first",
                "kernel_size": [3, 3],
                "strides": [2, 2],
                "dilation_rate": [1, 1],
                "groups": 1,
            },
        )[0]

    ref = jax.lax.conv_general_dilated(
        x, w, (2, 2), [(1, 1), (1, 1)], dimension_numbers=("NCHW", "OIHW", "NCHW")
    )
    np.testing.assert_allclose(job(x, w), ref, rtol=1e-4, atol=1e-4)


def test_split_like_and_reduce_sum_like(fresh_session):
    x = RNG.standard_normal((5, 3)).astype(np.float32)

    @flow.global_function()
    def job(
        x_: tp.Numpy.Placeholder(x.shape),
        l0: tp.Numpy.Placeholder((2, 3)),
        l1: tp.Numpy.Placeholder((3, 3)),
        like: tp.Numpy.Placeholder((3,)),
    ):
        parts = build(
            "split_like", "sl", [("in", [x_]), ("like", [l0, l1])], [("out", 2)], {"axis": 0}
        )
        red = build(
            "reduce_sum_like", "rsl", [("x", [x_]), ("like", [like])], ["y"], {"axis": [0]}
        )[0]
        return (*parts, red)

    zeros = [np.zeros(s, np.float32) for s in ((2, 3), (3, 3), (3,))]
    p0, p1, red = (r.numpy() for r in job(x, *zeros).get())
    np.testing.assert_array_equal(p0, x[:2])
    np.testing.assert_array_equal(p1, x[2:])
    np.testing.assert_allclose(red, x.sum(0), rtol=1e-6)


def _grad_job(op_type, arg_in, arg_out, x0):
    got = {}

    @flow.global_function(type="train")
    def job(a: tp.Numpy.Placeholder(x0.shape)) -> tp.Numpy:
        v = flow.get_variable("v", x0.shape, initializer=flow.zeros_initializer())
        x = a + v
        y = build(op_type, "op", [(arg_in, [x])], [arg_out])[0]
        loss = flow.math.reduce_sum(y * y)
        flow.watch_diff(x, lambda d: got.setdefault("dx", d))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0])).minimize(loss)
        return loss

    job(x0)
    flow.sync_default_session()
    return got["dx"]


GRAD = [
    ("relu", "in", "out", jax.nn.relu),
    ("sigmoid", "in", "out", jax.nn.sigmoid),
    ("tanh", "x", "y", jnp.tanh),
    ("exp", "x", "y", jnp.exp),
    ("ccrelu", "in", "out", jax.nn.relu),
]


@pytest.mark.parametrize("op_type,arg_in,arg_out,fn", GRAD, ids=[g[0] for g in GRAD])
def test_gradients_match_jax_grad(fresh_session, op_type, arg_in, arg_out, fn):
    x0 = np.array([[-1.5, 0.5], [2.0, -0.25]], np.float32)
    dx = _grad_job(op_type, arg_in, arg_out, x0)
    ref = jax.grad(lambda x: jnp.sum(fn(x) ** 2))(x0)
    np.testing.assert_allclose(dx, ref, rtol=1e-5, atol=1e-6)


def test_multi_input_gradient_is_the_kernels_fill(fresh_session):
    got = {}

    @flow.global_function(type="train")
    def job() -> tp.Numpy:
        x1 = flow.get_variable("x1", (3, 3), initializer=flow.random_uniform_initializer(-1, 1))
        x2 = flow.get_variable("x2", (3, 3), initializer=flow.random_uniform_initializer(-1, 1))
        y = build("TestMultiInput", "mi", [("x1", [x1]), ("x2", [x2])], ["y"])[0]
        flow.watch(x1, lambda v: got.setdefault("x1", v))
        flow.watch_diff(x1, lambda d: got.setdefault("d1", d))
        flow.watch_diff(x2, lambda d: got.setdefault("d2", d))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0])).minimize(y)
        return y

    out = job()
    flow.sync_default_session()
    np.testing.assert_array_equal(out, got["x1"])
    np.testing.assert_array_equal(got["d1"], np.ones((3, 3)))
    np.testing.assert_array_equal(got["d2"], np.full((3, 3), 2.0))


def test_module_builder_and_builtin_op(fresh_session):
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    y = RNG.standard_normal((3, 2)).astype(np.float32)
    builder = flow.user_op_module_builder("add_n")
    builder.InputSize("in", 2).Output("out")
    builder.user_op_module.InitOpKernel()
    with pytest.raises(flow.OpError, match="'add_n' has its op type already"):
        builder.Op("relu")

    @flow.global_function()
    def job(a: tp.Numpy.Placeholder(x.shape), b: tp.Numpy.Placeholder(y.shape)):
        s = builder.OpName("Add_0").Input("in", [a, a]).Build().InferAndTryRun()
        s2 = builder.OpName("Add_1").Input("in", [s.SoleOutputBlob(), a]).Build()
        total = s2.InferAndTryRun().SoleOutputBlob()
        mm = (
            flow.builtin_op("matmul")
            .Input("a")
            .Input("b")
            .Output("out")
            .Attr("transpose_a", False)
            .Attr("transpose_b", False)
            .Attr("alpha", 1.0)
            .Build()
        )
        ed = flow.builtin_op("expand_dims").Input("in").Output("out").Build()
        assert total.op_name == "Add_1"
        return total, mm(a, b)[0], ed(a, axis=2)[0]

    total, mm, ed = (r.numpy() for r in job(x, y).get())
    np.testing.assert_allclose(total, 3 * x, rtol=1e-6)
    np.testing.assert_allclose(mm, x @ y, rtol=1e-5)
    np.testing.assert_array_equal(ed, x[:, :, None])


def test_errors_name_the_op_type_and_the_known_ones(fresh_session):
    with pytest.raises(UnknownOpTypeError, match="'no_such_op'.*TestReshape.*relu"):
        flow.user_op_builder("x").Op("no_such_op")
    with pytest.raises(flow.OpError, match="op type 'relu' has no input 'x'; its inputs are: in"):
        flow.user_op_builder("x").Op("relu").Input("x", [])
    with pytest.raises(flow.OpError, match="'TestReshape' has no attribute 'shap'"):
        flow.user_op_builder("x").Op("TestReshape").Attr("shap", [1])

    @flow.global_function()
    def job(a: tp.Numpy.Placeholder((2, 2))):
        return build("TestReshape", "r", [("in", [a])])[0]

    with pytest.raises(flow.OpError, match=r"'r' \(TestReshape\) needs attribute\(s\) shape"):
        job(np.zeros((2, 2), np.float32))
    assert {"relu", "conv2d", "TestMultiInput", "TestRandomSource"} <= set(known_op_types())


def test_load_library_names_python_kernels():
    with pytest.raises(flow.FlowJobError, match="lib.so.*register_python_op"):
        flow.config.load_library("lib.so")


def test_matmul_conv_broadcast_gradients_match_jax_grad(fresh_session):
    x0 = RNG.standard_normal((2, 3, 5, 5)).astype(np.float32)
    w0 = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
    m0 = RNG.standard_normal((16, 3)).astype(np.float32)
    got = {}

    @flow.global_function(type="train")
    def job(
        xa: tp.Numpy.Placeholder(x0.shape),
        wa: tp.Numpy.Placeholder(w0.shape),
        ma: tp.Numpy.Placeholder(m0.shape),
    ) -> tp.Numpy:
        zero = flow.get_variable("z", (1,), initializer=flow.zeros_initializer())
        x, w, m = xa + zero, wa + zero, ma + zero
        conv = build(
            "conv2d",
            "conv",
            [("in", [x]), ("weight", [w])],
            attrs={
                "filters": 4,
                "padding_before": [0, 0],
                "kernel_size": [3, 3],
                "strides": [1, 1],
            },
        )[0]
        flat = build("reshape", "flat", [("in", [conv])], attrs={"shape": [2, 36]})[0]
        half = build("broadcast_mul", "half", [("x", [flat]), ("y", [flat])], ["z"])[0]
        rows = build("reshape", "rows", [("in", [half])], attrs={"shape": [18, 4]})[0]
        mm = build("matmul", "mm", [("a", [rows[:16]]), ("b", [m])], attrs={"transpose_a": True})[0]
        loss = flow.math.reduce_sum(mm)
        for key, blob in (("x", x), ("w", w), ("m", m)):
            flow.watch_diff(blob, functools.partial(got.__setitem__, key))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0])).minimize(loss)
        return loss

    def ref(x, w, m):
        conv = jax.lax.conv_general_dilated(
            x, w, (1, 1), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW")
        )
        rows = (conv.reshape(2, 36) ** 2).reshape(18, 4)
        return jnp.sum(rows[:16].T @ m)

    loss = job(x0, w0, m0)
    flow.sync_default_session()
    np.testing.assert_allclose(loss, ref(x0, w0, m0), rtol=1e-4)
    for key, grad in zip("xwm", jax.grad(ref, argnums=(0, 1, 2))(x0, w0, m0)):
        np.testing.assert_allclose(got[key], grad, rtol=1e-4, atol=1e-4)
