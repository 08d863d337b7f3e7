"""``flowjob/_src/ops/_unary.py``: elementwise unary math."""

from __future__ import annotations

import math

import numpy as np
import pytest
from ops_helpers import numeric_grad, uniform, value_and_grads

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


def test_unary_functions_match_numpy():
    x = uniform(3, 4, low=-3, high=3)
    pos = uniform(3, 4, seed=3, low=0.1, high=4)
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
        "log": (flow.math.log, np.log(pos)),
        "sqrt": (flow.math.sqrt, np.sqrt(pos)),
        "rsqrt": (flow.math.rsqrt, 1 / np.sqrt(pos)),
        "reciprocal": (flow.math.reciprocal, 1 / pos),
        "log1p": (flow.math.log1p, np.log1p(pos)),
    }

    @flow.global_function()
    def job(
        x: tp.Numpy.Placeholder((3, 4)), pos: tp.Numpy.Placeholder((3, 4))
    ) -> tp.Bundle[tp.Numpy]:
        out = {k: fn(x) for k, (fn, _) in cases.items()}
        out.update({k: fn(pos) for k, (fn, _) in positive.items()})
        return out

    got = job(x, pos)
    for k, (_, want) in {**cases, **positive}.items():
        assert got[k].shape == (3, 4) and got[k].dtype == np.float32, k
        np.testing.assert_allclose(got[k], want, rtol=1e-5, atol=1e-6, err_msg=k)


def test_elementwise_ops_accept_dynamic_blobs_and_others_refuse_them():
    @flow.global_function()
    def elementwise(x: tp.ListNumpy.Placeholder((4,))) -> tp.ListNumpy:
        return flow.math.relu(x) * 2 + 1

    @flow.global_function()
    def reshaped(x: tp.ListNumpy.Placeholder((4,))) -> tp.ListNumpy:
        return flow.reshape(x, (2, 2))

    (got,) = elementwise([np.array([-1.0, 2.0], np.float32)])
    np.testing.assert_array_equal(got, [1.0, 5.0])
    with pytest.raises(flow.OpError, match="does not accept dynamic"):
        reshaped([np.array([-1.0, 2.0], np.float32)])


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


def test_lgamma_float32_is_exact_at_its_zeros_and_v2_aliases():
    x = np.array([0.5, 1.0, 2.0, 4.5, -5.6, 0.0], np.float32)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((6,))) -> tp.Bundle[tp.Numpy]:
        return {
            "lgamma": flow.math.lgamma(x),
            "sigmoid_v2": flow.math.sigmoid_v2(x),
            "tanh_v2": flow.math.tanh_v2(x),
        }

    out = job(x)
    assert out["lgamma"].dtype == np.float32
    assert out["lgamma"][1] == 0 and out["lgamma"][2] == 0 and np.isinf(out["lgamma"][5])
    np.testing.assert_allclose(out["lgamma"][:5], _lgamma(x[:5].astype(np.float64)), rtol=1e-6)
    np.testing.assert_allclose(out["sigmoid_v2"], 1 / (1 + np.exp(-x)), rtol=1e-6)
    np.testing.assert_allclose(out["tanh_v2"], np.tanh(x), rtol=1e-6)
