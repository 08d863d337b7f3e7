"""ops/_batch_stats.py: training-mode batch norm whose gradient is written out, against JAX's
own gradient of the plain formula (float64) and PyTorch's BatchNorm."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from flowjob._src.ops import _batch_stats


def _plain(x, gamma, beta, axis, eps):
    axes = tuple(a for a in range(x.ndim) if a != axis)
    shape = [1] * x.ndim
    shape[axis] = -1
    mean = jnp.mean(x, axis=axes)
    var = jnp.mean(jnp.square(x - mean.reshape(shape)), axis=axes)
    y = (x - mean.reshape(shape)) * jax.lax.rsqrt(var.reshape(shape) + eps)
    return y * gamma.reshape(shape) + beta.reshape(shape), mean, var


@pytest.fixture
def x64():
    with jax.enable_x64(True):
        yield


@pytest.mark.parametrize(
    "shape,axis", [((4, 3, 5, 6), 1), ((4, 5, 6, 3), 3), ((7, 3), 1), ((2, 3, 8), 1)]
)
def test_values_and_every_gradient_match_jax_grad_in_float64(x64, shape, axis):
    rng = np.random.default_rng(0)
    c = shape[axis]
    x = jnp.asarray(rng.normal(size=shape) * 3 + 5)  # far from zero: the centred form holds
    gamma, beta = jnp.asarray(rng.normal(size=c)), jnp.asarray(rng.normal(size=c))
    # cotangents for y and for the statistics (the moving averages stop theirs, others may not)
    cot = (
        jnp.asarray(rng.normal(size=shape)),
        jnp.asarray(rng.normal(size=c)),
        jnp.asarray(rng.normal(size=c)),
    )

    def ours(x, g, b):
        return _batch_stats.normalize(x, g, b, axis, 1e-3)

    def theirs(x, g, b):
        return _plain(x, g, b, axis, 1e-3)

    out, vjp = jax.vjp(ours, x, gamma, beta)
    ref, ref_vjp = jax.vjp(theirs, x, gamma, beta)
    for a, b in zip(out, ref):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)
    for a, b in zip(vjp(cot), ref_vjp(cot)):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)


def test_second_order_gradients_follow_the_written_gradient(x64):
    rng = np.random.default_rng(1)
    x = jnp.asarray(rng.normal(size=(6, 4)))
    g, b = jnp.ones(4) * 1.5, jnp.zeros(4)

    def loss(fn, x):
        y = fn(x, g, b, 1, 1e-3)[0]
        return jnp.sum(jnp.sin(y) * jnp.arange(24.0).reshape(6, 4))

    def plain(x, g, b, axis, eps):
        return _plain(x, g, b, axis, eps)

    ours = jax.grad(lambda x: jnp.sum(jax.grad(lambda x: loss(_batch_stats.normalize, x))(x) ** 2))
    ref = jax.grad(lambda x: jnp.sum(jax.grad(lambda x: loss(plain, x))(x) ** 2))
    np.testing.assert_allclose(ours(x), ref(x), rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("dtype", [jnp.float16, jnp.bfloat16])
def test_half_inputs_are_normalized_in_float32_and_keep_their_dtype(dtype):
    rng = np.random.default_rng(2)
    x32 = rng.normal(size=(8, 4, 3, 3)).astype(np.float32)
    x = jnp.asarray(x32, dtype)
    y, mean, var = _batch_stats.normalize(x, jnp.ones(4), jnp.zeros(4), 1, 1e-5)
    dx = jax.grad(
        lambda x: jnp.sum(
            _batch_stats.normalize(x, jnp.ones(4), jnp.zeros(4), 1, 1e-5)[0].astype(jnp.float32)
            ** 2
        )
    )(x)
    assert y.dtype == dtype and dx.dtype == dtype and mean.dtype == jnp.float32
    ref = _plain(jnp.asarray(x, jnp.float32), jnp.ones(4), jnp.zeros(4), 1, 1e-5)[0]
    np.testing.assert_allclose(np.asarray(y, np.float32), ref, atol=0.05)


def test_train_step_gradients_match_pytorch_batchnorm():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x = rng.normal(size=(8, 16, 7, 7)).astype(np.float32) * 2 + 1
    dy = rng.normal(size=x.shape).astype(np.float32)
    gamma = rng.normal(size=16).astype(np.float32)
    beta = rng.normal(size=16).astype(np.float32)

    def f(x, g, b):
        return jax.nn.relu(_batch_stats.normalize(x, g, b, 1, 1e-5)[0])

    y, vjp = jax.vjp(f, jnp.asarray(x), jnp.asarray(gamma), jnp.asarray(beta))
    dx, dg, db = vjp(jnp.asarray(dy))

    bn = torch.nn.BatchNorm2d(16, eps=1e-5)
    with torch.no_grad():
        bn.weight.copy_(torch.tensor(gamma))
        bn.bias.copy_(torch.tensor(beta))
    xt = torch.tensor(x, requires_grad=True)
    yt = torch.relu(bn(xt))
    yt.backward(torch.tensor(dy))
    np.testing.assert_allclose(y, yt.detach().numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dx, xt.grad.numpy(), rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(dg, bn.weight.grad.numpy(), rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(db, bn.bias.grad.numpy(), rtol=1e-3, atol=1e-3)


def test_the_gradient_is_two_passes_not_jaxs_chain():
    """The compiled forward + backward has fewer fusions than JAX's own gradient of the
    same formula: the reason the module exists."""
    x = jnp.ones((8, 16, 7, 7))
    g, b = jnp.ones(16), jnp.zeros(16)

    def count(fn):
        def step(x, g, b):
            out, vjp = jax.vjp(lambda *a: fn(*a, 1, 1e-5)[0], x, g, b)
            return out, vjp(out)

        text = jax.jit(step).lower(x, g, b).compile().as_text()
        return text.count("fusion(")

    assert count(_batch_stats.normalize) < count(_plain)
