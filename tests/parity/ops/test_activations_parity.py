"""Activation functions (OneFlow's test_activations, test_gelu, test_elu, test_hardsigmoid,
test_hardswish, test_hardtanh, test_leaky_relu, test_mish, test_swish, test_relu6,
test_sqrt, test_square): value and gradient in float32 and float64 against jax.numpy."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from parity_helpers import Case, run_cases, uniform

import flowjob as flow


def _hardsigmoid(x):
    return jnp.clip(x / 6 + 0.5, 0, 1)


def _hardswish(x):
    return x * _hardsigmoid(x)


def _gelu(x):
    return 0.5 * x * (1 + jax.scipy.special.erf(x / jnp.sqrt(2.0)))


ACTIVATIONS = [
    ("relu", flow.math.relu, lambda x: jnp.maximum(x, 0)),
    ("nn.relu", flow.nn.relu, lambda x: jnp.maximum(x, 0)),
    ("sigmoid", flow.math.sigmoid, jax.nn.sigmoid),
    ("tanh", flow.math.tanh, jnp.tanh),
    ("gelu", flow.math.gelu, _gelu),
    ("elu_1", lambda x: flow.nn.elu(x, alpha=1.0), lambda x: jnp.where(x > 0, x, jnp.expm1(x))),
    (
        "elu_0.5",
        lambda x: flow.nn.elu(x, alpha=0.5),
        lambda x: jnp.where(x > 0, x, 0.5 * jnp.expm1(x)),
    ),
    ("hardsigmoid", flow.nn.hardsigmoid, _hardsigmoid),
    ("hardswish", flow.nn.hardswish, _hardswish),
    (
        "hardtanh",
        lambda x: flow.nn.hardtanh(x, min_val=-0.5, max_val=0.7),
        lambda x: jnp.clip(x, -0.5, 0.7),
    ),
    (
        "leaky_relu",
        lambda x: flow.nn.leaky_relu(x, alpha=0.2),
        lambda x: jnp.where(x > 0, x, 0.2 * x),
    ),
    ("mish", flow.nn.mish, lambda x: x * jnp.tanh(jax.nn.softplus(x))),
    ("swish", lambda x: flow.nn.swish(x, beta=1.5), lambda x: x * jax.nn.sigmoid(1.5 * x)),
    ("relu6", flow.nn.relu6, lambda x: jnp.clip(x, 0, 6)),
    ("square", flow.math.square, jnp.square),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_activations_value_and_gradient(dtype):
    # away from the kinks (0, +-3, bounds), where one-sided gradients are a convention
    x = uniform((4, 5, 6), -8, 8, dtype, seed=1)
    x = np.where(np.abs(np.abs(x) - 3) < 0.05, x + 0.1, x)
    x = np.where(np.abs(x) < 0.05, 0.1, x).astype(dtype)
    x = np.where(np.abs(x - 6) < 0.05, 6.2, x).astype(dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-10
    cases = [Case(name, fn, ref, [x], rtol=tol, atol=tol) for name, fn, ref in ACTIVATIONS]
    cases.append(Case("sqrt", flow.math.sqrt, jnp.sqrt, [np.abs(x) + 0.5], rtol=tol, atol=tol))
    run_cases(cases)
