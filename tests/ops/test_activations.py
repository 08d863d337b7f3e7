"""``flowjob/_src/ops/_activations.py``: activations, softmax and the explicit gradient ops."""

from __future__ import annotations

import math
from typing import Tuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from ops_helpers import (
    FixedInit,
    np_sigmoid,
    numeric_grad,
    uniform,
    value_and_grads,
)

import flowjob as flow
import flowjob.typing as tp

ACTIVATIONS = {
    "elu": (lambda b: flow.nn.elu(b, alpha=0.7), lambda x: np.where(x > 0, x, 0.7 * np.expm1(x))),
    "relu6": (flow.nn.relu6, lambda x: np.clip(x, 0, 6)),
    "hardtanh": (lambda b: flow.nn.hardtanh(b, -0.5, 2.0), lambda x: np.clip(x, -0.5, 2.0)),
    "hardsigmoid": (flow.nn.hardsigmoid, lambda x: np.clip(x / 6 + 0.5, 0, 1)),
    "hardswish": (flow.nn.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "swish": (lambda b: flow.nn.swish(b, beta=1.5), lambda x: x * np_sigmoid(1.5 * x)),
    "mish": (flow.nn.mish, lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    "logsoftmax": (
        flow.nn.logsoftmax,
        lambda x: x - np.log(np.sum(np.exp(x), axis=-1, keepdims=True)),
    ),
}


def test_gradient_ops_match_autodiff_of_the_forward_ops():
    rng = np.random.default_rng(6)
    x, dy = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))

    def np_softmax(v):
        e = np.exp(v - v.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    @flow.global_function()
    def job(
        x: tp.Numpy.Placeholder((3, 4), dtype=flow.float64),
        dy: tp.Numpy.Placeholder((3, 4), dtype=flow.float64),
    ) -> tp.Bundle[tp.Numpy]:
        return {
            "gelu": flow.math.gelu_grad(x, dy),
            "sigmoid": flow.math.sigmoid_grad(flow.math.sigmoid(x), dy),
            "softmax": flow.nn.softmax_grad(flow.nn.softmax(x), dy),
        }

    out = job(x, dy)
    gelu = np.vectorize(lambda v: 0.5 * v * (1 + math.erf(v / math.sqrt(2))))
    np.testing.assert_allclose(
        out["gelu"], dy * (gelu(x + 1e-6) - gelu(x - 1e-6)) / 2e-6, rtol=1e-6
    )
    s = 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(out["sigmoid"], dy * s * (1 - s), rtol=1e-12)
    # softmax's vector-Jacobian product, row by row
    p = np_softmax(x)
    want = np.stack([(np.diag(r) - np.outer(r, r)) @ d for r, d in zip(p, dy)])
    np.testing.assert_allclose(out["softmax"], want, rtol=1e-10, atol=1e-12)


def test_hardswish_float16_gradient_is_rounded_once():
    x0 = np.linspace(-4, 4, 801).astype(np.float32)
    grads = {}

    @flow.global_function(type="train")
    def Job() -> tp.Numpy:
        x = flow.get_variable("x", x0.shape, initializer=FixedInit(x0))
        h = flow.cast(x, flow.float16)
        flow.watch_diff(h, lambda d: grads.setdefault("h", d))
        y = flow.nn.hardswish(h)
        loss = flow.math.reduce_sum(flow.cast(y, flow.float))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0])).minimize(loss)
        return flow.cast(y, flow.float)

    y = Job()
    flow.sync_default_session()
    xh = x0.astype(np.float16).astype(np.float32)
    ref_y = jax.nn.hard_swish(jnp.asarray(xh))
    ref_d = jax.grad(lambda v: jnp.sum(jax.nn.hard_swish(v)))(jnp.asarray(xh))
    # One rounding to float16: at most half an ulp (2**-11 relative) away.
    np.testing.assert_allclose(y, ref_y, rtol=2**-11, atol=1e-7)
    inner = np.abs(xh) < 2.9  # away from the kinks at +-3
    np.testing.assert_allclose(
        grads["h"].astype(np.float32)[inner], np.asarray(ref_d)[inner], rtol=2**-11, atol=1e-7
    )


def test_softmax_and_log_softmax_along_axes():
    x = uniform(2, 3, 4, low=-5, high=5)

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


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_value_and_gradient(name):
    fn, ref = ACTIVATIONS[name]
    # values away from the kinks (-3, 0, 3, 6, clip bounds) so finite differences are exact
    x = np.array([[-7.1, -3.4, -2.2, -0.8, -0.2], [0.3, 1.1, 2.6, 4.4, 7.3]])
    value, (g,), c = value_and_grads(fn, x)
    np.testing.assert_allclose(value, ref(x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g, numeric_grad(ref, [x], c)[0], rtol=1e-5, atol=1e-7)


def test_relu6_gradient_is_zero_at_the_bounds_as_oneflow():
    x = np.array([0.0, 6.0, 3.0])
    value, (g,), c = value_and_grads(flow.nn.relu6, x)
    np.testing.assert_array_equal(value, [0, 6, 3])
    np.testing.assert_allclose(g, [0, 0, c[2]])
