"""``flowjob/ops/_fused.py``: OneFlow's fused ops."""

from __future__ import annotations

import numpy as np
from ops_helpers import numeric_grad, value_and_grads

import flowjob as flow
import flowjob.typing as tp


def test_fused_scale_tril_and_softmax_dropout():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(2, 4, 4))

    def ref(a):
        t = np.where(np.tril(np.ones((4, 4)), 0) > 0, a * 0.5, -1e4)
        e = np.exp(t - t.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    value, (g,), c = value_and_grads(
        lambda b: flow.nn.fused_scale_tril_softmax_dropout(b, fill_value=-1e4, scale=0.5), x)
    np.testing.assert_allclose(value, ref(x), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(g, numeric_grad(ref, [x], c)[0], rtol=1e-5, atol=1e-8)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 4, 4), dtype=flow.float64)) -> tp.Numpy:
        return flow.math.fused_scale_tril(x, diagonal=1, fill_value=7.0, scale=3.0)

    np.testing.assert_allclose(job(x), np.where(np.tril(np.ones((4, 4)), 1) > 0, 3 * x, 7.0))
