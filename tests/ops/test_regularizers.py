"""Regularizers: the gradient term OneFlow adds, and the loss it corresponds to."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from flowjob._src.ops import regularizers as R


def test_constructors_defaults_and_conf():
    assert (R.l1().l1, R.l1().l2) == (0.01, 0.0)
    assert (R.l2(0.5).l1, R.l2(0.5).l2) == (0.0, 0.5)
    reg = R.l1_l2(0.1, 0.2)
    assert (reg.l1, reg.l2) == (0.1, 0.2)
    assert reg.conf == {"l1_l2_conf": {"l1": 0.1, "l2": 0.2}}
    assert repr(R.l2(0.5)) == "regularizers.l2(l=0.5)"
    assert R.l1_l2(0.01, 0.0) == R.l1(0.01)
    with pytest.raises(ValueError, match="must be >= 0"):
        R.l2(-1.0)


def test_gradient_term_matches_numpy_including_zero():
    w = np.array([[-2.0, 0.0, 0.5], [3.0, -0.1, 0.0]], np.float32)
    got = np.asarray(R.regularization_grad(jnp.asarray(w), R.l1_l2(0.3, 0.7)))
    want = 0.3 * np.sign(w) + 0.7 * w
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert got[0, 1] == 0.0
    assert R.regularization_grad(jnp.asarray(w), R.l1()).dtype == jnp.float32


def test_gradient_term_is_the_gradient_of_the_documented_loss():
    w = jnp.asarray(np.random.default_rng(0).normal(size=(5, 4)), jnp.float32)
    reg = R.l1_l2(0.05, 0.2)
    np.testing.assert_allclose(
        np.asarray(jax.grad(R.regularization_loss)(w, reg)),
        np.asarray(R.regularization_grad(w, reg)),
        rtol=1e-6,
    )


def test_oneflow_update_gradient_equals_mean_loss_plus_unscaled_term():
    # OneFlow: grad(sum of per-example losses) / N + reg term, N = loss element count.
    rng = np.random.default_rng(1)
    x = jnp.asarray(rng.normal(size=(8, 3)), jnp.float32)
    y = jnp.asarray(rng.normal(size=(8,)), jnp.float32)
    w = jnp.asarray(rng.normal(size=(3,)), jnp.float32)
    reg = R.l1_l2(0.1, 0.3)

    def per_example(w):
        return (x @ w - y) ** 2

    oneflow = jax.grad(lambda w: per_example(w).sum())(w) / 8 + R.regularization_grad(w, reg)
    mean_plus_loss = jax.grad(lambda w: per_example(w).mean() + R.regularization_loss(w, reg))(w)
    np.testing.assert_allclose(np.asarray(oneflow), np.asarray(mean_plus_loss), rtol=1e-5)
