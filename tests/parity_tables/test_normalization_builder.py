"""A program's own batch-norm wrapper: ``flow.user_op_builder("bn").Op("normalization")`` with
OneFlow's inputs, outputs and attributes, in training and inference, against
``flow.layers.batch_normalization`` (the public op) and NumPy."""

from __future__ import annotations

import numpy as np

import flowjob as flow
import flowjob.typing as tp
from tests.userop.builder_helpers import variables

X = np.random.default_rng(7).standard_normal((4, 3, 2, 2)).astype(np.float32)
EPS, MOMENTUM = 1e-3, 0.9


def _wrapper_bn(x, training: bool, name: str = "bn"):
    """The shape of a 2021 program's helper: its own variables, then the op by type."""
    c = x.shape[1]

    def var(what, init, trainable):
        return flow.get_variable(f"{name}-{what}", (c,), initializer=init, trainable=trainable)

    mean = var("moving_mean", flow.zeros_initializer(), False)
    variance = var("moving_variance", flow.ones_initializer(), False)
    gamma = var("gamma", flow.ones_initializer(), True)
    beta = var("beta", flow.zeros_initializer(), True)
    builder = (
        flow.user_op_builder(name)
        .Op("normalization")
        .Input("x", [x])
        .Input("moving_mean", [mean])
        .Input("moving_variance", [variance])
        .Input("gamma", [gamma])
        .Input("beta", [beta])
        .Output("y")
        .Attr("axis", 1)
        .Attr("epsilon", EPS)
        .Attr("training", training)
        .Attr("momentum", MOMENTUM)
    )
    if training:
        builder = builder.Output("mean").Output("inv_variance")
    return builder.Build().InferAndTryRun().RemoteBlobList()


def test_training_form_normalizes_by_the_batch_and_moves_the_statistics(fresh_session):
    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder(X.shape)) -> tuple[tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy]:
        y, mean, inv_variance = _wrapper_bn(x, training=True)
        ref = flow.layers.batch_normalization(
            x, axis=1, momentum=MOMENTUM, epsilon=EPS, training=True, name="ref"
        )
        loss = flow.math.reduce_mean(y * y) + flow.math.reduce_mean(ref * ref)
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.0]), momentum=0
        ).minimize(loss)
        return y, mean, inv_variance, ref

    y, mean, inv_variance, ref = train(X)
    batch_mean, batch_var = X.mean(axis=(0, 2, 3)), X.var(axis=(0, 2, 3))
    np.testing.assert_allclose(mean, batch_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(inv_variance, 1 / np.sqrt(batch_var + EPS), rtol=1e-5)
    expected = (X - batch_mean[:, None, None]) / np.sqrt(batch_var[:, None, None] + EPS)
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)
    values = variables()
    for what in ("moving_mean", "moving_variance"):
        np.testing.assert_allclose(values[f"bn-{what}"], values[f"ref-{what}"], rtol=1e-6)
    np.testing.assert_allclose(values["bn-moving_mean"], (1 - MOMENTUM) * batch_mean, rtol=1e-5)


def test_inference_form_uses_the_moving_statistics(fresh_session):
    @flow.global_function()
    def infer(x: tp.Numpy.Placeholder(X.shape)) -> tuple[tp.Numpy, tp.Numpy]:
        (y,) = _wrapper_bn(x, training=False)
        ref = flow.layers.batch_normalization(
            x, axis=1, momentum=MOMENTUM, epsilon=EPS, training=False, name="ref"
        )
        return y, ref

    y, ref = infer(X)
    np.testing.assert_allclose(y, X / np.sqrt(1 + EPS), rtol=1e-5, atol=1e-6)  # mean 0, var 1
    np.testing.assert_allclose(y, ref, rtol=1e-6, atol=1e-6)
