"""Activation layers and functions: values and gradients against jax.numpy references."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import flowjob.experimental as flow
from tests.nn_modules._ref import forward_backward

X = np.random.default_rng(0).normal(size=(2, 3, 4)) * 3

CASES = [
    (flow.nn.ReLU(), jax.nn.relu),
    (flow.nn.ReLU6(), lambda x: jnp.clip(x, 0, 6)),
    (flow.nn.Tanh(), jnp.tanh),
    (flow.nn.ELU(alpha=1.2), lambda x: jnp.where(x > 0, x, 1.2 * jnp.expm1(x))),
    (flow.nn.GELU(), lambda x: jax.nn.gelu(x, approximate=False)),
    (flow.nn.Sigmoid(), jax.nn.sigmoid),
    (flow.nn.Hardsigmoid(), lambda x: jnp.clip(x / 6 + 0.5, 0, 1)),
    (flow.nn.Hardswish(), lambda x: x * jnp.clip(x + 3, 0, 6) / 6),
    (flow.nn.Hardtanh(-2.0, 2.3), lambda x: jnp.clip(x, -2.0, 2.3)),
    (flow.nn.LeakyReLU(0.2), lambda x: jnp.where(x > 0, x, 0.2 * x)),
    (flow.nn.LogSigmoid(), jax.nn.log_sigmoid),
    (flow.nn.Softplus(beta=1.5, threshold=2.0),
     lambda x: jnp.where(1.5 * x > 2.0, x, jnp.log1p(jnp.exp(1.5 * x)) / 1.5)),
    (flow.nn.Softmax(dim=1), lambda x: jax.nn.softmax(x, axis=1)),
    (flow.nn.Softmax(), lambda x: jax.nn.softmax(x, axis=-1)),
    (flow.nn.LogSoftmax(), lambda x: jax.nn.log_softmax(x, axis=1)),
    (flow.nn.LogSoftmax(dim=-1), lambda x: jax.nn.log_softmax(x, axis=-1)),
]  # fmt: skip


@pytest.mark.parametrize(("module", "ref"), CASES, ids=lambda c: type(c).__name__)
def test_values_and_gradients_match_jax(module, ref):
    out, w, (grad,) = forward_backward(module, X)
    np.testing.assert_allclose(out, ref(X), rtol=1e-6, atol=1e-9)
    want = jax.grad(lambda x: jnp.sum(ref(x) * w))(X)
    np.testing.assert_allclose(grad, want, rtol=1e-6, atol=1e-9)


def test_functions_and_methods_match_the_modules():
    x = flow.Tensor(X)
    for name, module in (("tanh", flow.nn.Tanh()), ("sigmoid", flow.nn.Sigmoid())):
        np.testing.assert_array_equal(getattr(flow, name)(x).numpy(), module(x).numpy())
        np.testing.assert_array_equal(getattr(x, name)().numpy(), module(x).numpy())
    np.testing.assert_allclose(x.gelu().numpy(), flow.nn.GELU()(x).numpy())
    np.testing.assert_allclose(flow.softmax(x, dim=0).numpy(), jax.nn.softmax(X, axis=0), 1e-6)
    np.testing.assert_allclose(x.softmax().numpy(), jax.nn.softmax(X, axis=-1), 1e-6)


def test_prelu_learns_one_slope_per_channel():
    m = flow.nn.PReLU(num_parameters=3, init=0.1)
    assert tuple(m.weight.shape) == (3, 1, 1) and np.all(m.weight.numpy() == np.float32(0.1))
    x = np.random.default_rng(1).normal(size=(2, 3, 4, 5)).astype(np.float32)
    alpha = np.array([0.1, -0.5, 2.0], np.float32)[:, None, None]
    m.weight.copy_(alpha)
    xt = flow.Tensor(x, requires_grad=True)
    y = m(xt)
    np.testing.assert_allclose(y.numpy(), np.where(x > 0, x, alpha * x), rtol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(xt.grad.numpy(), np.where(x > 0, 1, alpha + 0 * x), rtol=1e-6)
    want = np.where(x > 0, 0, x).sum(axis=(0, 2, 3))[:, None, None]
    np.testing.assert_allclose(m.weight.grad.numpy(), want, rtol=1e-5)
    with pytest.raises(ValueError, match="num_parameters"):
        m(flow.Tensor(np.ones((1, 4, 2, 2))))


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="min_val"):
        flow.nn.Hardtanh(1.0, -1.0)
    with pytest.raises(IndexError, match="dim 3"):
        flow.nn.Softmax(dim=3)(flow.Tensor(X))
