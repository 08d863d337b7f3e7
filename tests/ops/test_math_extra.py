"""OneFlow v0.4's remaining math ops: unary/binary math, reductions, against NumPy/SciPy-free
references and finite-difference gradients."""

from __future__ import annotations

import math

import numpy as np
import pytest
from ops_helpers import numeric_grad, value_and_grads

import flowjob as flow
import flowjob.typing as tp

_erf = np.vectorize(math.erf)
_erfc = np.vectorize(math.erfc)
_lgamma = np.vectorize(math.lgamma)

UNARY = {
    # name: (numpy reference, input low, input high)
    "acos": (np.arccos, -0.9, 0.9),
    "asin": (np.arcsin, -0.9, 0.9),
    "atan": (np.arctan, -3.0, 3.0),
    "acosh": (np.arccosh, 1.2, 4.0),
    "asinh": (np.arcsinh, -3.0, 3.0),
    "atanh": (np.arctanh, -0.9, 0.9),
    "cosh": (np.cosh, -2.0, 2.0),
    "sinh": (np.sinh, -2.0, 2.0),
    "tan": (np.tan, -1.2, 1.2),
    "erf": (_erf, -2.0, 2.0),
    "erfc": (_erfc, -2.0, 2.0),
    "expm1": (np.expm1, -2.0, 2.0),
    "lgamma": (_lgamma, 0.3, 5.0),
    "log_sigmoid": (lambda x: -np.log1p(np.exp(-x)), -5.0, 5.0),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_math_value_and_gradient(name):
    ref, lo, hi = UNARY[name]
    x = np.random.default_rng(0).uniform(lo, hi, (3, 4))
    fn = getattr(flow.math, name)
    value, (grad,), c = value_and_grads(lambda b: fn(b), x)
    np.testing.assert_allclose(value, ref(x), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(grad, numeric_grad(ref, [x], c)[0], rtol=1e-5, atol=1e-7)


def test_rint_and_reciprocal_no_nan_float32():
    x = np.array([-2.5, -1.5, -0.5, 0.0, 0.5, 1.5, 2.5, 3.7], np.float32)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((8,))) -> tp.Bundle[tp.Numpy]:
        return {"rint": flow.math.rint(x), "recip": flow.math.reciprocal_no_nan(x)}

    out = job(x)
    np.testing.assert_array_equal(out["rint"], np.rint(x))
    expected = np.where(x == 0, 0, 1 / np.where(x == 0, 1, x)).astype(np.float32)
    np.testing.assert_allclose(out["recip"], expected, rtol=1e-6)
    assert out["recip"].dtype == np.float32


def test_reciprocal_no_nan_and_rint_gradients():
    x = np.array([[-2.0, 0.0, 0.5], [3.0, 0.0, -0.25]])
    _, (g,), c = value_and_grads(flow.math.reciprocal_no_nan, x)
    np.testing.assert_allclose(g, np.where(x == 0, 0, -c / np.where(x == 0, 1, x) ** 2))
    _, (g,), _ = value_and_grads(flow.math.rint, x + 0.3)
    np.testing.assert_array_equal(g, np.zeros_like(x))


def test_unary_math_rejects_integers():
    with pytest.raises(flow.OpError, match=r"flow.math.acos.*floating point"):
        @flow.global_function()
        def job(x: tp.Numpy.Placeholder((2,), dtype=flow.int32)) -> tp.Numpy:
            return flow.math.acos(x)

        job(np.zeros(2, np.int32))


BINARY = {
    "atan2": np.arctan2,
    "xdivy": lambda x, y: np.where(x == 0, 0.0, x / np.where(x == 0, 1.0, y)),
    "xlogy": lambda x, y: np.where(x == 0, 0.0, x * np.log(np.where(x == 0, 1.0, y))),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_math_value_and_gradients(name):
    rng = np.random.default_rng(1)
    x = rng.uniform(-2, 2, (2, 5))
    y = rng.uniform(0.5, 2, (2, 5))
    if name != "atan2":
        x[0, 0] = 0.0
    ref = BINARY[name]
    value, (gx, gy), c = value_and_grads(getattr(flow.math, name), x, y)
    np.testing.assert_allclose(value, ref(x, y), rtol=1e-12)
    nx, ny = numeric_grad(ref, [x, y], c)
    if name != "atan2":
        nx[0, 0] = 0.0  # OneFlow's kernels: no gradient for x where x == 0
    np.testing.assert_allclose(gx, nx, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(gy, ny, rtol=1e-5, atol=1e-7)


def test_xdivy_xlogy_give_zero_not_nan_where_x_is_zero():
    x = np.array([0.0, 0.0, 2.0])
    y = np.array([0.0, -1.0, 4.0])
    for name in ("xdivy", "xlogy"):
        value, (gx, gy), _ = value_and_grads(getattr(flow.math, name), x, y)
        assert value[0] == 0 and value[1] == 0, name
        assert np.all(np.isfinite(gx[:2])) and np.all(gy[:2] == 0), (name, gx, gy)


def test_floordiv_value_and_zero_gradient():
    x = np.array([[4.0, -3.0, 5.5], [-7.0, 7.0, 0.5]])
    y = np.array([[3.0, 2.0, 2.0], [2.0, -2.0, 0.25]])
    value, (gx, gy), _ = value_and_grads(flow.math.floordiv, x, y)
    np.testing.assert_array_equal(value, np.floor(x / y))
    assert not gx.any() and not gy.any()


REDUCE = {
    "reduce_euclidean_norm": lambda x, a, k: np.sqrt(np.sum(x * x, axis=a, keepdims=k)),
    "reduce_logsumexp": lambda x, a, k: np.log(np.sum(np.exp(x), axis=a, keepdims=k)),
    "reduce_std": lambda x, a, k: np.std(x, axis=a, keepdims=k),
    "reduce_variance": lambda x, a, k: np.var(x, axis=a, keepdims=k),
}


@pytest.mark.parametrize("name", sorted(REDUCE))
@pytest.mark.parametrize("axis,keepdims", [(1, False), ([0, 2], True), (None, False)])
def test_float_reductions_value_and_gradient(name, axis, keepdims):
    x = np.random.default_rng(2).uniform(-1.5, 1.5, (2, 3, 4))
    ref = REDUCE[name]
    a = tuple(axis) if isinstance(axis, list) else axis
    value, (g,), c = value_and_grads(
        lambda b: getattr(flow.math, name)(b, axis=axis, keepdims=keepdims), x)
    want = ref(x, a, keepdims)
    assert value.shape == (want.shape or (1,))  # OneFlow: a full reduction has shape (1,)
    np.testing.assert_allclose(value.reshape(want.shape), want, rtol=1e-10)
    np.testing.assert_allclose(
        g, numeric_grad(lambda v: ref(v, a, keepdims).reshape(value.shape), [x], c)[0],
        rtol=1e-5, atol=1e-7)


def test_logsumexp_is_stable_for_large_inputs():
    x = np.array([[1000.0, 1000.0], [-1000.0, 0.0]], np.float32)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 2))) -> tp.Numpy:
        return flow.math.reduce_logsumexp(x, axis=1)

    np.testing.assert_allclose(job(x), [1000 + np.log(2), 0.0], rtol=1e-6)


def test_any_all_keep_dtype_and_empty_axis_forms():
    x = np.array([[0, 1, 0], [0, 0, 0], [2, 3, 1]], np.int8)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3, 3), dtype=flow.int8)) -> tp.Bundle[tp.Numpy]:
        return {"any1": flow.math.reduce_any(x, axis=1), "all1": flow.math.reduce_all(x, axis=1),
                "any": flow.math.reduce_any(x), "all_keep": flow.math.reduce_all(x, keepdims=True),
                "any_none": flow.math.reduce_any(x, axis=[]),
                "all_none": flow.math.reduce_all(x, axis=[])}

    out = job(x)
    np.testing.assert_array_equal(out["any1"], np.any(x, axis=1).astype(np.int8))
    np.testing.assert_array_equal(out["all1"], np.all(x, axis=1).astype(np.int8))
    assert out["any1"].dtype == np.int8
    assert out["any"].shape == (1,) and out["any"][0] == 1
    assert out["all_keep"].shape == (1, 1) and out["all_keep"][0, 0] == 0
    np.testing.assert_array_equal(out["any_none"], (x != 0).astype(np.int8))
    np.testing.assert_array_equal(out["all_none"], (x != 0).astype(np.int8))


def test_empty_axis_list_variance_std_are_zeros_and_full_reductions_are_shape_1():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Bundle[tp.Numpy]:
        return {"var": flow.math.reduce_variance(x, axis=[]),
                "std": flow.math.reduce_std(x, axis=[]),
                "sum": flow.math.reduce_sum(x), "mean": flow.math.reduce_mean(x, axis=[0, 1]),
                "max_keep": flow.math.reduce_max(x, keepdims=True),
                "argmax": flow.math.argmax(flow.reshape(x, (6,)))}

    out = job(x)
    np.testing.assert_array_equal(out["var"], np.zeros((2, 3)))
    np.testing.assert_array_equal(out["std"], np.zeros((2, 3)))
    assert out["sum"].shape == (1,) and out["sum"][0] == 15
    assert out["mean"].shape == (1,) and out["mean"][0] == 2.5
    assert out["max_keep"].shape == (1, 1)
    assert out["argmax"].shape == (1,) and out["argmax"][0] == 5


def test_lgamma_float32_is_exact_at_its_zeros_and_v2_aliases():
    x = np.array([0.5, 1.0, 2.0, 4.5, -5.6, 0.0], np.float32)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((6,))) -> tp.Bundle[tp.Numpy]:
        return {"lgamma": flow.math.lgamma(x), "sigmoid_v2": flow.math.sigmoid_v2(x),
                "tanh_v2": flow.math.tanh_v2(x)}

    out = job(x)
    assert out["lgamma"].dtype == np.float32
    assert out["lgamma"][1] == 0 and out["lgamma"][2] == 0 and np.isinf(out["lgamma"][5])
    np.testing.assert_allclose(out["lgamma"][:5], _lgamma(x[:5].astype(np.float64)), rtol=1e-6)
    np.testing.assert_allclose(out["sigmoid_v2"], 1 / (1 + np.exp(-x)), rtol=1e-6)
    np.testing.assert_allclose(out["tanh_v2"], np.tanh(x), rtol=1e-6)
