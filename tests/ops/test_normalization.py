"""``flowjob/_src/ops/_normalization.py``: moments and the functional normalizations."""

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
    def job(
        x: tp.Numpy.Placeholder((4, 3, 5)),
        gamma: tp.Numpy.Placeholder((5,)),
        beta: tp.Numpy.Placeholder((5,)),
    ) -> Tuple[(tp.Numpy,) * 5]:
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
    np.testing.assert_allclose(
        ln, (x - mk) / np.sqrt(vk + 1e-5) * gamma + beta, rtol=1e-4, atol=1e-5
    )


def test_layer_norm_grad_ops_match_jax_grad():
    import jax
    import jax.numpy as jnp

    Numpy = tp.Numpy

    rng = np.random.default_rng(12)
    x = rng.normal(size=(3, 4, 5))
    dy = rng.normal(size=(3, 4, 5))
    gamma = rng.normal(size=(4, 5))
    eps = 1e-5

    def normalize(a):
        mean = a.mean(axis=(1, 2), keepdims=True)
        return (a - mean) / jnp.sqrt(((a - mean) ** 2).mean(axis=(1, 2), keepdims=True) + eps)

    mean = x.mean(axis=(1, 2))
    inv = 1 / np.sqrt(x.var(axis=(1, 2)) + eps)
    norm = np.asarray(normalize(x))

    @flow.global_function()
    def job(
        dy_: Numpy.Placeholder((3, 4, 5), dtype=flow.float64),
        x_: Numpy.Placeholder((3, 4, 5), dtype=flow.float64),
        mean_: Numpy.Placeholder((3,), dtype=flow.float64),
        inv_: Numpy.Placeholder((3,), dtype=flow.float64),
        norm_: Numpy.Placeholder((3, 4, 5), dtype=flow.float64),
        gamma_: Numpy.Placeholder((4, 5), dtype=flow.float64),
    ) -> Tuple[Numpy, Numpy, Numpy, Numpy]:
        dx = flow.layers.layer_norm_grad(dy_, x_, mean_, inv_, begin_norm_axis=1)
        dnorm, dbeta, dgamma = flow.layers.layer_norm_param_grad(dy_, norm_, gamma_, 1)
        return dx, dnorm, dbeta, dgamma

    dx, dnorm, dbeta, dgamma = job(dy, x, mean, inv, norm, gamma)
    _, vjp = jax.vjp(normalize, x)
    np.testing.assert_allclose(dx, vjp(dy)[0], rtol=1e-9, atol=1e-12)
    _, vjp = jax.vjp(lambda n, g, b: g * n + b, norm, gamma, np.zeros((4, 5)))
    want_norm, want_gamma, want_beta = vjp(dy)
    np.testing.assert_allclose(dnorm, want_norm, rtol=1e-12)
    np.testing.assert_allclose(dgamma, want_gamma, rtol=1e-12)
    np.testing.assert_allclose(dbeta, want_beta, rtol=1e-12)
