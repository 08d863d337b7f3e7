"""BatchNorm (train/eval, running statistics), LayerNorm and the losses: values and
gradients against NumPy / jax.grad references."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import flowjob.experimental as flow
from flowjob._src.tensor_ops import cross_entropy, layer_norm, nll_loss
from tests.nn_modules._ref import forward_backward

RNG = np.random.default_rng(0)


def _bn_ref(x, gamma, beta, eps=1e-5):
    axes = tuple(a for a in range(x.ndim) if a != 1)
    shape = [1, -1] + [1] * (x.ndim - 2)
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / jnp.sqrt(var + eps) * gamma.reshape(shape) + beta.reshape(shape)


@pytest.mark.parametrize(("cls", "shape"), [("BatchNorm1d", (6, 3)), ("BatchNorm1d", (4, 3, 5)),
                                            ("BatchNorm2d", (2, 3, 4, 5))])  # fmt: skip
def test_batchnorm_train_normalizes_by_the_batch_and_updates_running_stats(cls, shape):
    m = getattr(flow.nn, cls)(3, momentum=0.3)
    gamma, beta = RNG.normal(size=3), RNG.normal(size=3)
    m.weight.data, m.bias.data = flow.Tensor(gamma), flow.Tensor(beta)
    x = RNG.normal(size=shape).astype(np.float32) * 2 + 1
    xt = flow.Tensor(x, requires_grad=True)
    y = m(xt)
    np.testing.assert_allclose(y.numpy(), _bn_ref(x, gamma, beta), rtol=1e-4, atol=1e-4)
    axes = tuple(a for a in range(x.ndim) if a != 1)
    # OneFlow v0.4: running = momentum * running + (1 - momentum) * batch (biased variance)
    np.testing.assert_allclose(m.running_mean.numpy(), 0.7 * x.mean(axis=axes), rtol=1e-5)
    np.testing.assert_allclose(m.running_var.numpy(), 0.3 + 0.7 * x.var(axis=axes), rtol=1e-5)
    cot = RNG.normal(size=shape).astype(np.float32)
    (y * flow.Tensor(cot)).sum().backward()
    ref = lambda x, g, b: jnp.sum(_bn_ref(x, g, b) * cot)  # noqa: E731
    gx, gg, gb = jax.grad(ref, argnums=(0, 1, 2))(x, gamma, beta)
    np.testing.assert_allclose(xt.grad.numpy(), gx, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(m.weight.grad.numpy(), gg, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(m.bias.grad.numpy(), gb, rtol=1e-4, atol=1e-4)
    assert m.running_mean.grad is None and not m.running_mean.requires_grad


def test_batchnorm_eval_uses_the_running_stats():
    m = flow.nn.BatchNorm2d(2).eval()
    m.running_mean.copy_(np.array([1.0, -1.0], np.float32))
    m.running_var.copy_(np.array([4.0, 0.25], np.float32))
    x = RNG.normal(size=(3, 2, 2, 2)).astype(np.float32)
    mean, var = np.array([1.0, -1.0])[:, None, None], np.array([4.0, 0.25])[:, None, None]
    np.testing.assert_allclose(m(flow.Tensor(x)).numpy(), (x - mean) / np.sqrt(var + 1e-5), 1e-5)
    np.testing.assert_allclose(m.running_mean.numpy(), [1.0, -1.0])  # unchanged
    assert list(m.state_dict()) == ["weight", "bias", "running_mean", "running_var"]


def test_batchnorm_without_affine_or_running_stats():
    m = flow.nn.BatchNorm1d(3, affine=False, track_running_stats=False).eval()
    assert list(m.parameters()) == [] and list(m.buffers()) == []
    x = RNG.normal(size=(5, 3)).astype(np.float32)
    np.testing.assert_allclose(m(flow.Tensor(x)).numpy(), _bn_ref(x, np.ones(3), np.zeros(3)),
                               rtol=1e-4, atol=1e-4)  # fmt: skip
    with pytest.raises(ValueError, match="expected 2D or 3D input"):
        m(flow.Tensor(np.ones((1, 3, 2, 2))))


def _ln_ref(x, g, b, k, eps=1e-5):
    axes = tuple(range(x.ndim - k, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / jnp.sqrt(var + eps) * g + b


@pytest.mark.parametrize("normalized", [(5,), (4, 5)])
def test_layer_norm_values_and_gradients(normalized):
    x = RNG.normal(size=(2, 3, 4, 5))
    g, b = RNG.normal(size=normalized), RNG.normal(size=normalized)
    out, cot, grads = forward_backward(lambda x, g, b: layer_norm(x, normalized, g, b), x, g, b)
    k = len(normalized)
    np.testing.assert_allclose(out, _ln_ref(x, g, b, k), rtol=1e-6, atol=1e-8)
    ref = lambda x, g, b: jnp.sum(_ln_ref(x, g, b, k) * cot)  # noqa: E731
    for got, want in zip(grads, jax.grad(ref, argnums=(0, 1, 2))(x, g, b)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    m = flow.nn.LayerNorm(normalized)
    assert np.all(m.weight.numpy() == 1) and np.all(m.bias.numpy() == 0)
    with pytest.raises(ValueError, match="normalized_shape"):
        m(flow.Tensor(np.ones((2, 6))))


def _nll_ref(logp, t, reduction, ignore=None):
    picked = -jnp.take_along_axis(logp, jnp.expand_dims(t, 1), axis=1).squeeze(1)
    keep = jnp.ones(t.shape) if ignore is None else (t != ignore).astype(logp.dtype)
    picked = picked * keep
    if reduction == "mean":
        return picked.sum() / keep.sum()
    return picked.sum() if reduction == "sum" else picked


def _log_softmax(x):
    return jax.nn.log_softmax(x, axis=1)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(5, 4), (2, 4, 3), (2, 4, 3, 2)])
@pytest.mark.parametrize("ignore", [None, 1])
@pytest.mark.parametrize(("fn", "to_logp"), [(nll_loss, None), (cross_entropy, _log_softmax)])
def test_losses_match_references(fn, to_logp, reduction, shape, ignore):
    x = RNG.normal(size=shape)
    t = RNG.integers(0, shape[1], size=(shape[0], *shape[2:]))
    t.flat[0] = 1  # one target to ignore at least
    tt = flow.tensor(t)
    out, cot, (grad,) = forward_backward(lambda x: fn(x, tt, ignore, reduction), x)

    def ref(x):
        return _nll_ref(to_logp(x) if to_logp else x, t, reduction, ignore)

    np.testing.assert_allclose(out, ref(x), rtol=1e-6, atol=1e-9)
    want = jax.grad(lambda x: jnp.sum(ref(x) * cot))(x)
    np.testing.assert_allclose(grad, want, rtol=1e-6, atol=1e-9)


def test_loss_modules_and_their_arguments():
    x = RNG.normal(size=(3, 4)).astype(np.float32)
    t = np.array([0, 3, 1])
    logp = jax.nn.log_softmax(x, axis=1)
    ce = flow.nn.CrossEntropyLoss(reduction=None)(flow.Tensor(x), flow.tensor(t))
    np.testing.assert_allclose(ce.numpy(), -logp[np.arange(3), t], rtol=1e-5)
    nll = flow.nn.NLLLoss(ignore_index=3)(flow.Tensor(x), flow.tensor(t))
    np.testing.assert_allclose(nll.numpy(), -(x[0, 0] + x[2, 1]) / 2, rtol=1e-5)
    with pytest.raises(ValueError, match="weight"):
        flow.nn.NLLLoss(weight=flow.Tensor(4))
    with pytest.raises(ValueError, match="reduction"):
        flow.nn.CrossEntropyLoss(reduction="max")
    with pytest.raises(ValueError, match="target"):
        flow.nn.NLLLoss()(flow.Tensor(x), flow.tensor(np.array([[0, 1, 2]])))
