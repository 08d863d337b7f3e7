"""flow.math: elementwise ops, reductions, arg-max/top-k, softmax and matmul vs NumPy."""

from __future__ import annotations

import math
from typing import Tuple

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob.graph import namespace


def _rand(*shape, seed=0, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, shape).astype(np.float32)


def test_binary_arithmetic_broadcasts_and_takes_constants_on_either_side():
    a, b, c = _rand(2, 3), _rand(3, seed=1, low=0.5), _rand(2, 1, seed=2)
    const = np.array([1.0, -2.0, 3.0])  # float64 on purpose: must not promote the blob

    @flow.global_function()
    def job(a: tp.Numpy.Placeholder((2, 3)), b: tp.Numpy.Placeholder((3,)),
            c: tp.Numpy.Placeholder((2, 1))) -> Tuple[(tp.Numpy,) * 16]:
        return (flow.math.add(a, b), flow.math.subtract(a, c), flow.math.multiply(b, c),
                flow.math.divide(a, b), a + 1.5, 2 - a, a * const, 3.0 / b, a ** 2, 2 ** b,
                flow.math.floor_mod(a, 0.75),
                flow.math.maximum(a, b), flow.math.minimum(a, c), -a, abs(a), const - a)

    out = job(a, b, c)
    expected = (a + b, a - c, b * c, a / b, a + 1.5, 2 - a, a * const, 3.0 / b, a ** 2, 2 ** b,
                np.mod(a, 0.75), np.maximum(a, b), np.minimum(a, c), -a, np.abs(a), const - a)
    for i, (got, want) in enumerate(zip(out, expected)):
        assert got.dtype == np.float32, i
        assert got.shape == np.broadcast(want).shape, i
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=f"output {i}")


def test_integer_division_truncates_and_mod_floors():
    x = np.array([-7, 7, -8, 9], np.int32)
    y = np.array([2, -2, 3, 4], np.int32)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4,), dtype=flow.int32),
            y: tp.Numpy.Placeholder((4,), dtype=flow.int32)) -> Tuple[tp.Numpy, tp.Numpy,
                                                                     tp.Numpy]:
        return x / y, x % y, x * 3

    div, mod, mul = job(x, y)
    assert div.dtype == np.int32 and mod.dtype == np.int32 and mul.dtype == np.int32
    np.testing.assert_array_equal(div, np.trunc(x / y).astype(np.int32))
    np.testing.assert_array_equal(mod, np.mod(x, y))
    np.testing.assert_array_equal(mul, x * 3)


def test_comparisons_return_int8():
    a, b = np.array([[1, 2, 3]], np.float32), np.array([[1], [3]], np.float32)

    @flow.global_function()
    def job(a: tp.Numpy.Placeholder((1, 3)),
            b: tp.Numpy.Placeholder((2, 1))) -> Tuple[(tp.Numpy,) * 8]:
        return (a == b, a != b, a < b, a <= b, a > b, a >= b, a > 1.5,
                flow.math.logical_and(a > 1, b > 1))

    got = job(a, b)
    want = (a == b, a != b, a < b, a <= b, a > b, a >= b, a > 1.5, (a > 1) & (b > 1))
    for g, w in zip(got, want):
        assert g.dtype == np.int8
        np.testing.assert_array_equal(g, w.astype(np.int8))


def test_unary_functions_match_numpy():
    x = _rand(3, 4, low=-3, high=3)
    pos = _rand(3, 4, seed=3, low=0.1, high=4)
    erf = np.vectorize(math.erf)
    cases = {
        "relu": (lambda v: flow.math.relu(v), np.maximum(x, 0)),
        "flow.nn.relu": (lambda v: flow.nn.relu(v), np.maximum(x, 0)),
        "sigmoid": (flow.math.sigmoid, 1 / (1 + np.exp(-x))),
        "tanh": (flow.math.tanh, np.tanh(x)),
        "gelu": (flow.math.gelu, 0.5 * x * (1 + erf(x / np.sqrt(2)))),
        "exp": (flow.math.exp, np.exp(x)),
        "square": (flow.math.square, x * x),
        "abs": (flow.math.abs, np.abs(x)),
        "negative": (flow.math.negative, -x),
        "floor": (flow.math.floor, np.floor(x)),
        "ceil": (flow.math.ceil, np.ceil(x)),
        "round": (flow.math.round, np.round(x)),
        "sign": (flow.math.sign, np.sign(x)),
        "sin": (flow.math.sin, np.sin(x)),
        "cos": (flow.math.cos, np.cos(x)),
        "softplus": (flow.math.softplus, np.log1p(np.exp(x))),
        "leaky_relu": (lambda v: flow.nn.leaky_relu(v, alpha=0.1), np.where(x > 0, x, 0.1 * x)),
        "clip": (lambda v: flow.math.clip_by_value(v, -1.0, 0.5), np.clip(x, -1.0, 0.5)),
        "clip_min": (lambda v: flow.math.clip_by_value(v, min_value=0.0), np.maximum(x, 0.0)),
    }
    positive = {
        "log": (flow.math.log, np.log(pos)), "sqrt": (flow.math.sqrt, np.sqrt(pos)),
        "rsqrt": (flow.math.rsqrt, 1 / np.sqrt(pos)), "reciprocal": (flow.math.reciprocal, 1 / pos),
        "log1p": (flow.math.log1p, np.log1p(pos)),
    }

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3, 4)),
            pos: tp.Numpy.Placeholder((3, 4))) -> tp.Bundle[tp.Numpy]:
        out = {k: fn(x) for k, (fn, _) in cases.items()}
        out.update({k: fn(pos) for k, (fn, _) in positive.items()})
        return out

    got = job(x, pos)
    for k, (_, want) in {**cases, **positive}.items():
        assert got[k].shape == (3, 4) and got[k].dtype == np.float32, k
        np.testing.assert_allclose(got[k], want, rtol=1e-5, atol=1e-6, err_msg=k)


def test_reductions_over_axis_forms():
    x = _rand(2, 3, 4, low=0.5, high=1.5)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3, 4))) -> tp.Bundle[tp.Numpy]:
        assert flow.math.reduce_sum(x, axis=[]) is x  # an empty axis list reduces nothing
        return {
            "sum_all": flow.math.reduce_sum(x), "sum_1": flow.math.reduce_sum(x, axis=1),
            "sum_neg_keep": flow.math.reduce_sum(x, axis=-1, keepdims=True),
            "mean_02": flow.math.reduce_mean(x, axis=[0, 2]),
            "max_t": flow.math.reduce_max(x, axis=(1, 2)),
            "min_0": flow.math.reduce_min(x, axis=0), "prod_2": flow.math.reduce_prod(x, axis=2),
            "var_keep": flow.math.reduce_variance(x, axis=[1], keepdims=True),
        }

    got = job(x)
    want = {
        "sum_all": x.sum().reshape(1), "sum_1": x.sum(1), "sum_neg_keep": x.sum(-1, keepdims=True),
        "mean_02": x.mean((0, 2)), "max_t": x.max((1, 2)), "min_0": x.min(0),
        "prod_2": x.prod(2), "var_keep": x.var(1, keepdims=True),
    }
    for k, w in want.items():
        assert got[k].shape == np.shape(w), k  # OneFlow: a full reduction has shape (1,)
        np.testing.assert_allclose(got[k], w, rtol=1e-5, err_msg=k)


def test_argmax_and_top_k_return_int32_indices():
    x = np.array([[1, 3, 8, 7, 2], [1, 9, 4, 3, 2]], np.float32)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 5))) -> Tuple[(tp.Numpy,) * 5]:
        return (flow.math.argmax(x), flow.math.argmax(x, axis=0), flow.math.top_k(x, k=3),
                flow.math.top_k(x, axis=0, k=1), flow.math.top_k(x, k=2, sorted=False))

    am, am0, top3, top_axis0, unsorted = job(x)
    for arr in (am, am0, top3, top_axis0, unsorted):
        assert arr.dtype == np.int32
    np.testing.assert_array_equal(am, [2, 1])
    np.testing.assert_array_equal(am0, x.argmax(0))
    np.testing.assert_array_equal(top3, np.argsort(-x, axis=1, kind="stable")[:, :3])
    np.testing.assert_array_equal(top_axis0, x.argmax(0)[None, :])
    np.testing.assert_array_equal(unsorted, np.sort(np.argsort(-x, axis=1)[:, :2], axis=1))


def test_softmax_and_log_softmax_along_axes():
    x = _rand(2, 3, 4, low=-5, high=5)

    def ref(v, axis):
        e = np.exp(v - v.max(axis, keepdims=True))
        return e / e.sum(axis, keepdims=True)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3, 4))) -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        return flow.nn.softmax(x), flow.math.softmax(x, axis=1), flow.nn.log_softmax(x, axis=0)

    s_last, s1, ls0 = job(x)
    np.testing.assert_allclose(s_last, ref(x, -1), rtol=1e-5)
    np.testing.assert_allclose(s1, ref(x, 1), rtol=1e-5)
    np.testing.assert_allclose(ls0, np.log(ref(x, 0)), rtol=1e-5, atol=1e-6)


def test_matmul_transposes_batches_and_constants():
    a, b = _rand(3, 4), _rand(5, 4, seed=1)
    ba, bb = _rand(2, 3, 4, seed=2), _rand(2, 4, 5, seed=3)
    const = _rand(4, 2, seed=4).astype(np.float64)

    @flow.global_function()
    def job(a: tp.Numpy.Placeholder((3, 4)), b: tp.Numpy.Placeholder((5, 4)),
            ba: tp.Numpy.Placeholder((2, 3, 4)),
            bb: tp.Numpy.Placeholder((2, 4, 5))) -> Tuple[(tp.Numpy,) * 7]:
        return (flow.math.matmul(a, b, transpose_b=True),
                flow.matmul(a, a, transpose_a=True),
                flow.math.matmul(ba, bb),
                flow.math.matmul(bb, ba, transpose_a=True, transpose_b=True),
                ba @ const, flow.math.matmul(const.T, a, transpose_b=True),
                flow.math.add_n([a, a, a]))

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
    a, b = _rand(3, 4), _rand(4, 2, seed=1)

    @flow.global_function()
    def job(a: tp.Numpy.Placeholder((3, 4)), b: tp.Numpy.Placeholder((4, 2))) -> tp.Numpy:
        return flow.math.matmul(a, b, alpha=0.5)

    np.testing.assert_allclose(job(a, b), 0.5 * (a @ b), rtol=1e-5)


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
    assert names == {"relu0": "Relu_0", "relu1": "Relu_1", "named": "my_relu",
                     "ns": "block-Sigmoid_0", "scalar": "ScalarAdd_0", "same": "AddN_0",
                     "broadcast": "broadcast_add_0", "mul": "ElementWiseMul_0",
                     "sum": "ReduceSum_0", "matmul": "Matmul_0"}


@pytest.mark.parametrize("body, fragments", [
    (lambda x: flow.math.reduce_sum(x, axis=3),
     ["flow.math.reduce_sum", "axis 3 is out of range", "rank 2",
      "flow.math.reduce_sum(x, axis=3)"]),
    (lambda x: flow.math.add(x, np.ones((4,), np.float32)),
     ["flow.math.add", "(2, 3)", "(4,)", "cannot be broadcast", "flow.math.add(x, np.ones("]),
    (lambda x: flow.math.matmul(x, x),
     ["flow.matmul", "inner dimensions differ", "flow.math.matmul(x, x)"]),
    (lambda x: flow.math.top_k(x, k=0), ["flow.math.top_k", "k must be an int >= 1"]),
    (lambda x: flow.math.argmax(x, axis=-3, name="am"), ["flow.math.argmax (op 'am')", "axis -3"]),
    (lambda x: flow.math.sigmoid(flow.cast(x, flow.int32)),
     ["flow.math.sigmoid", "floating point"]),
])
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


def test_float_constants_meeting_integer_blobs_give_float32():
    x = np.array([1, 2, 3], np.int32)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3,), dtype=flow.int32)) -> Tuple[(tp.Numpy,) * 4]:
        return x * 0.5, x + 1, x ** 0.5, flow.math.clip_by_value(x, 1.7, 2.2)

    half, plus, root, clipped = job(x)
    assert half.dtype == np.float32 and plus.dtype == np.int32 and root.dtype == np.float32
    np.testing.assert_allclose(half, x * 0.5)
    np.testing.assert_array_equal(plus, x + 1)
    np.testing.assert_allclose(root, np.sqrt(x), rtol=1e-6)
    assert clipped.dtype == np.int32 and clipped.tolist() == [1, 2, 2]  # integral bounds 1, 2


def test_elementwise_ops_accept_dynamic_blobs_and_others_refuse_them():
    @flow.global_function()
    def elementwise(x: tp.ListNumpy.Placeholder((4,))) -> tp.ListNumpy:
        return flow.math.relu(x) * 2 + 1

    @flow.global_function()
    def reduction(x: tp.ListNumpy.Placeholder((4,))) -> tp.ListNumpy:
        return flow.math.reduce_sum(x)

    (got,) = elementwise([np.array([-1.0, 2.0], np.float32)])
    np.testing.assert_array_equal(got, [1.0, 5.0])
    with pytest.raises(flow.OpError, match="does not accept dynamic"):
        reduction([np.array([-1.0, 2.0], np.float32)])
