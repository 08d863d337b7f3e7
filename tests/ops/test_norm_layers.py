"""``flowjob/_src/ops/_norm_layers.py``: batch normalization and layer normalization layers."""

from __future__ import annotations

from typing import Tuple

import numpy as np
import pytest
from ops_helpers import (
    normal,
    sgd,
    value_and_grads,
    variables,
)

import flowjob as flow
import flowjob.typing as tp


def _batch_norm_jobs(axis=1, **kwargs):
    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((8, 3, 2, 2))) -> tp.Numpy:
        y = flow.layers.batch_normalization(x, axis=axis, name="bn", **kwargs)
        sgd(0.0).minimize(flow.math.reduce_mean(y))
        return y

    @flow.global_function()
    def predict(x: tp.Numpy.Placeholder((8, 3, 2, 2))) -> tp.Numpy:
        return flow.layers.batch_normalization(x, axis=axis, name="bn", **kwargs)

    return train, predict


def test_batch_normalization_add_relu_uses_the_batch_norm_variables():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, 3, 2, 2)).astype(np.float32)
    addend = rng.normal(size=(4, 3, 2, 2)).astype(np.float32)

    @flow.global_function(type="train")
    def job(
        x: tp.Numpy.Placeholder((4, 3, 2, 2)), a: tp.Numpy.Placeholder((4, 3, 2, 2))
    ) -> Tuple[tp.Numpy, tp.Numpy]:
        y = flow.layers.batch_normalization_add_relu(x, a, axis=1, name="bn")
        z = flow.layers.batch_normalization_relu(x, axis=1, name="bn2", training=False)
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.0]), momentum=0
        ).minimize(flow.math.reduce_mean(y))
        return y, z

    y, z = job(x, addend)
    mean, var = x.mean((0, 2, 3), keepdims=True), x.var((0, 2, 3), keepdims=True)
    np.testing.assert_allclose(
        y, np.maximum((x - mean) / np.sqrt(var + 1e-3) + addend, 0), rtol=1e-4, atol=1e-5
    )
    np.testing.assert_allclose(z, np.maximum(x / np.sqrt(1 + 1e-3), 0), rtol=1e-5, atol=1e-6)
    names = set(variables())
    assert {"bn-gamma", "bn-beta", "bn-moving_mean", "bn-moving_variance", "bn2-gamma"} <= names


def test_batch_normalization_explicit_variable_names():
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        return flow.layers.batch_normalization(
            x, axis=1, name="bn", gamma_name="my_gamma", moving_mean_name="stats-mean"
        )

    job(np.ones((2, 3), np.float32))
    names = set(variables())
    assert {"my_gamma", "stats-mean", "bn-beta", "bn-moving_variance"} <= names
    assert "bn-gamma" not in names


def test_batch_norm_train_uses_batch_statistics_and_updates_moving_ones():
    train, predict = _batch_norm_jobs()
    x1, x2 = normal(8, 3, 2, 2) * 2 + 1, normal(8, 3, 2, 2, seed=1) - 3

    def normalized(x, mean, var):
        return (x - mean[:, None, None]) / np.sqrt(var[:, None, None] + 1e-3)

    y1 = train(x1)
    m1, v1 = x1.mean((0, 2, 3)), x1.var((0, 2, 3))
    np.testing.assert_allclose(y1, normalized(x1, m1, v1), rtol=1e-4, atol=1e-5)
    values = variables()
    mm, mv = 0.01 * m1, 0.99 + 0.01 * v1
    np.testing.assert_allclose(values["bn-moving_mean"], mm, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(values["bn-moving_variance"], mv, rtol=1e-5)
    np.testing.assert_array_equal(values["bn-gamma"], np.ones(3))
    np.testing.assert_array_equal(values["bn-beta"], np.zeros(3))

    train(x2)
    m2, v2 = x2.mean((0, 2, 3)), x2.var((0, 2, 3))
    mm, mv = 0.99 * mm + 0.01 * m2, 0.99 * mv + 0.01 * v2
    values = variables()
    np.testing.assert_allclose(values["bn-moving_mean"], mm, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(values["bn-moving_variance"], mv, rtol=1e-5)

    y_pred = predict(x2)  # predict jobs normalize with the moving statistics...
    np.testing.assert_allclose(y_pred, normalized(x2, mm, mv), rtol=1e-4, atol=1e-5)
    values = variables()  # ...and leave them alone
    np.testing.assert_allclose(values["bn-moving_mean"], mm, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("kwargs", [{"training": False}, {"trainable": False}])
def test_batch_norm_in_train_job_without_training_uses_moving_statistics(kwargs):
    train, _ = _batch_norm_jobs(**kwargs)
    x = normal(8, 3, 2, 2) + 2
    np.testing.assert_allclose(train(x), x / np.sqrt(1 + 1e-3), rtol=1e-5)
    values = variables()
    np.testing.assert_array_equal(values["bn-moving_mean"], np.zeros(3))
    np.testing.assert_array_equal(values["bn-moving_variance"], np.ones(3))


def test_batch_norm_gamma_beta_gradients_and_options():
    x = normal(16, 5) * 3
    g = normal(16, 5, seed=1)

    @flow.global_function(type="train")
    def job(x: tp.Numpy.Placeholder((16, 5))) -> Tuple[tp.Numpy, tp.Numpy]:
        y = flow.layers.batch_normalization(x, name="bn", momentum=0.5, epsilon=1e-5)
        plain = flow.layers.batch_normalization(x, center=False, scale=False, name="plain")
        sgd(0.1).minimize(flow.math.reduce_sum(y * g))
        return y, plain

    y, plain = job(x)
    xhat = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5)
    np.testing.assert_allclose(y, xhat, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(
        plain, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3), rtol=1e-4, atol=1e-5
    )
    values = variables()
    np.testing.assert_allclose(values["bn-gamma"], 1 - 0.1 * (g * xhat).sum(0), rtol=1e-4)
    np.testing.assert_allclose(values["bn-beta"], -0.1 * g.sum(0), rtol=1e-5)
    np.testing.assert_allclose(values["bn-moving_mean"], 0.5 * x.mean(0), rtol=1e-5)
    assert "plain-gamma" not in values and "plain-beta" not in values
    assert "plain-moving_mean" in values


def test_layer_norm_layer():
    x = normal(3, 4, 5)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3, 4, 5))) -> Tuple[tp.Numpy, tp.Numpy]:
        return flow.layers.layer_norm(x), flow.layers.layer_norm(x, begin_norm_axis=-1, name="ln2")

    whole, last = job(x)
    m, v = x.mean((1, 2), keepdims=True), x.var((1, 2), keepdims=True)
    np.testing.assert_allclose(whole, (x - m) / np.sqrt(v + 1e-5), rtol=1e-4, atol=1e-5)
    m, v = x.mean(2, keepdims=True), x.var(2, keepdims=True)
    np.testing.assert_allclose(last, (x - m) / np.sqrt(v + 1e-5), rtol=1e-4, atol=1e-5)
    values = variables()
    assert values["LayerNorm-gamma"].shape == (5,) and values["LayerNorm-beta"].shape == (5,)
    np.testing.assert_array_equal(values["ln2-gamma"], np.ones(5))


# -- flow.nn.GroupNorm / InstanceNorm1d/2d/3d (OneFlow v0.4's functional layers) -----------
def _np_group_norm(x, groups, eps=1e-5):
    import jax.numpy as jnp

    g = x.reshape(x.shape[0], groups, -1)
    mean = g.mean(axis=2, keepdims=True)
    var = ((g - mean) ** 2).mean(axis=2, keepdims=True)
    return ((g - mean) / jnp.sqrt(var + eps)).reshape(x.shape)


@pytest.mark.parametrize(
    "op, shape, groups",
    [
        (lambda x: flow.nn.GroupNorm(x, num_groups=2, affine=False), (2, 4, 3, 5), 2),
        (lambda x: flow.nn.InstanceNorm1d(x, affine=False), (3, 2, 7), 2),
        (lambda x: flow.nn.InstanceNorm2d(x, affine=False), (2, 3, 4, 5), 3),
        (lambda x: flow.nn.InstanceNorm3d(x, affine=False), (2, 2, 3, 2, 4), 2),
    ],
)
def test_group_and_instance_norm_match_numpy_and_jax_grad(op, shape, groups):
    import jax

    x = (normal(*shape, seed=5) * 3 + 1).astype(np.float64)
    value, (grad,), cot = value_and_grads(op, x)
    # an instance norm is a group norm with one channel per group
    np.testing.assert_allclose(value, np.asarray(_np_group_norm(x, groups)), rtol=1e-6, atol=1e-9)
    want = jax.grad(lambda a: (_np_group_norm(a, groups) * cot).sum())(x)
    np.testing.assert_allclose(grad, want, rtol=1e-6, atol=1e-9)


def test_affine_group_norm_trains_per_channel_gamma_and_beta_named_as_oneflow():
    x = normal(2, 4, 3, seed=2).astype(np.float32)

    @flow.global_function(type="train")
    def job(x: tp.Numpy.Placeholder((2, 4, 3))) -> tp.Numpy:
        y = flow.nn.GroupNorm(x, num_groups=2, name="gn")
        sgd(0.5).minimize(flow.math.reduce_sum(y * y))
        return y

    y = job(x)
    np.testing.assert_allclose(y, _np_group_norm(x, 2), rtol=1e-5, atol=1e-5)
    v = variables()
    assert v["gn_gamma"].shape == v["gn_beta"].shape == (1, 4, 1)
    # d/dgamma sum(y^2) = 2 * sum(n^2) per channel; d/dbeta = 2 * sum(n) per channel
    n = np.asarray(_np_group_norm(x.astype(np.float64), 2))
    np.testing.assert_allclose(
        v["gn_gamma"][0, :, 0], 1 - 0.5 * 2 * (n**2).sum(axis=(0, 2)), rtol=1e-4
    )
    np.testing.assert_allclose(v["gn_beta"][0, :, 0], -0.5 * 2 * n.sum(axis=(0, 2)), atol=1e-4)


def test_instance_norm_default_names_and_bad_inputs():
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3, 4, 4))) -> tp.Numpy:
        return flow.nn.InstanceNorm2d(x)

    job(normal(2, 3, 4, 4).astype(np.float32))
    assert sorted(variables()) == ["InstanceNorm2D_0_beta", "InstanceNorm2D_0_gamma"]

    @flow.global_function()
    def bad(x: tp.Numpy.Placeholder((2, 3, 4))) -> tp.Numpy:
        return flow.nn.GroupNorm(x, num_groups=2)

    with pytest.raises(flow.OpError, match="divisor of the 3 channels"):
        bad(np.zeros((2, 3, 4), np.float32))
