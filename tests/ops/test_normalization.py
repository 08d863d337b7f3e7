"""``flowjob/ops/_normalization.py``: moments and the functional normalizations."""

from __future__ import annotations

from typing import Tuple

import numpy as np

import flowjob as flow
import flowjob.typing as tp


def test_moments_and_functional_normalizations():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 3, 5)).astype(np.float32)
    gamma = rng.standard_normal(5).astype(np.float32)
    beta = rng.standard_normal(5).astype(np.float32)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 3, 5)), gamma: tp.Numpy.Placeholder((5,)),
            beta: tp.Numpy.Placeholder((5,))) -> Tuple[(tp.Numpy,) * 5]:
        mean, var = flow.nn.moments(x, [0, 2])
        bn = flow.nn.batch_normalization(x, mean, var, variance_epsilon=1e-3, axis=1)
        mean_k, var_k = flow.nn.moments(x, [2], keepdims=True)
        ln = flow.nn.layer_norm(x, gamma, beta, begin_norm_axis=2, epsilon=1e-5)
        return mean, var, bn, flow.nn.batch_normalization(x, mean_k, var_k, axis=1), ln

    mean, var, bn, bn_full, ln = job(x, gamma, beta)
    np.testing.assert_allclose(mean, x.mean((0, 2)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var, x.var((0, 2)), rtol=1e-5)
    m, v = x.mean((0, 2))[None, :, None], x.var((0, 2))[None, :, None]
    np.testing.assert_allclose(bn, (x - m) / np.sqrt(v + 1e-3), rtol=1e-4, atol=1e-5)
    mk, vk = x.mean(2, keepdims=True), x.var(2, keepdims=True)
    np.testing.assert_allclose(bn_full, (x - mk) / np.sqrt(vk + 1e-5), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ln, (x - mk) / np.sqrt(vk + 1e-5) * gamma + beta, rtol=1e-4,
                               atol=1e-5)
