"""``flowjob/_src/ops/_layers.py``: dense, convolution and prelu layers."""

from __future__ import annotations

from typing import Tuple

import numpy as np
import pytest
from ops_helpers import (
    FixedInit,
    normal,
    np_conv2d,
    same_pads,
    sgd,
    value_and_grads,
    variables,
)

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.runtime import default_session


def _np_conv_weight_grad(x, g, w_shape, strides, pads):
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0)) + tuple(pads))
    _, _, kh, kw = w_shape
    dw = np.zeros(w_shape)
    for i in range(kh):
        for j in range(kw):
            patch = xp[
                :,
                :,
                i : i + strides[0] * g.shape[2] : strides[0],
                j : j + strides[1] * g.shape[3] : strides[1],
            ]
            dw[:, :, i, j] = np.einsum("nohw,nchw->oc", g, patch)
    return dw


def test_prelu_layer_variable_and_gradients():
    x = np.array([[[-2.0, 1.0], [3.0, -0.5]], [[0.5, -1.0], [-4.0, 2.0]]])  # (2, 2, 2)
    init = np.array([[0.1], [0.3]])  # shared over axis 2
    value, (g,), c = value_and_grads(
        lambda b: flow.layers.prelu(
            b, alpha_initializer=FixedInit(init), shared_axes=[2], name="act"
        ),
        x,
    )
    np.testing.assert_allclose(value, np.where(x > 0, x, x * init))
    np.testing.assert_allclose(g, np.where(x > 0, c, c * init))
    assert variables()["act-alpha"].shape == (2, 1)


def test_dense_variables_names_and_values():
    x, w, b = normal(4, 3), normal(5, 3, seed=1), normal(5, seed=2)
    names = {}

    def activation(v, name=None):
        names["activation_kw"] = name
        return flow.math.relu(v, name=name)

    @flow.global_function()
    def job(
        x: tp.Numpy.Placeholder((4, 3)), x3: tp.Numpy.Placeholder((2, 4, 3))
    ) -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        out = flow.layers.dense(
            x,
            5,
            activation=activation,
            kernel_initializer=FixedInit(w),
            bias_initializer=FixedInit(b),
            name="dense1",
        )
        names["out"] = out.op_name
        zero = flow.layers.dense(x, 2)  # default name "Dense" and zero initializers
        names["zero"] = zero.op_name
        shared = flow.layers.dense(x3, 5, kernel_initializer=FixedInit(w), name="dense3")
        return out, zero, shared

    x3 = normal(2, 4, 3, seed=3)
    out, zero, shared = job(x, x3)
    np.testing.assert_allclose(out, np.maximum(x @ w.T + b, 0), rtol=1e-5, atol=1e-6)
    assert names == {
        "activation_kw": "activation",
        "out": "dense1-activation",
        "zero": "Dense-bias_add",
    }
    np.testing.assert_array_equal(zero, np.zeros((4, 2), np.float32))
    assert shared.shape == (2, 4, 5)  # rank > 2: flattened to (-1, 3) and reshaped back
    np.testing.assert_allclose(shared, x3 @ w.T, rtol=1e-5, atol=1e-6)
    values = variables()
    assert values["dense1-weight"].shape == (5, 3) and values["dense1-bias"].shape == (5,)
    assert values["Dense-weight"].shape == (2, 3) and not values["Dense-weight"].any()
    assert not values["Dense-bias"].any()


def test_unnamed_layers_get_unique_names_but_explicit_names_still_collide():
    # mid-2020 OneFlow named unnamed layers uniquely; v0.4 used "Dense" (kept for the first)
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        return flow.layers.dense(flow.layers.dense(x, 3), 3)

    job(np.zeros((2, 3), np.float32))
    names = set(default_session().variables.defs)
    assert {"Dense-weight", "Dense-bias", "Dense_1-weight", "Dense_1-bias"} <= names

    @flow.global_function()
    def clash(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        return flow.layers.dense(flow.layers.dense(x, 3, name="fc"), 3, name="fc")

    with pytest.raises(flow.JobDefinitionError) as info:
        clash(np.zeros((2, 3), np.float32))
    assert (
        "variable 'fc-weight' already exists, getting the same variable is not allowed "
        "when param reuse is False"
    ) in str(info.value)


def test_dense_model_distribute_is_recorded_on_the_variables():
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        return flow.layers.dense(
            x,
            4,
            name="fc",
            model_distribute=flow.distribute.split(0),
            kernel_initializer=FixedInit(np.ones((4, 3))),
        )

    np.testing.assert_allclose(job(np.ones((2, 3), np.float32)), np.full((2, 4), 3.0))
    defs = default_session().variables.defs
    assert defs["fc-weight"].distribute == flow.distribute.split(0)
    assert defs["fc-bias"].distribute == flow.distribute.split(0)


def test_dense_split_distribute_needs_2d_inputs():
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3, 4))) -> tp.Numpy:
        return flow.layers.dense(x, 4, model_distribute=flow.distribute.split(0))

    with pytest.raises(flow.OpError, match="split\\(0\\) needs 2-D inputs"):
        job(np.zeros((2, 3, 4), np.float32))


def test_dense_sgd_step_matches_numpy_gradients():
    x, w, b = normal(6, 4), normal(3, 4, seed=1), normal(3, seed=2)
    g = normal(6, 3, seed=3)

    @flow.global_function(type="train")
    def job(x: tp.Numpy.Placeholder((6, 4))) -> tp.Numpy:
        out = flow.layers.dense(
            x,
            3,
            activation=flow.math.tanh,
            kernel_initializer=FixedInit(w),
            bias_initializer=FixedInit(b),
            name="fc",
        )
        loss = flow.math.reduce_sum(out * g)
        sgd(0.1).minimize(loss)
        return out

    job(x)
    z = x @ w.T + b
    dz = g * (1 - np.tanh(z) ** 2)
    values = variables()
    np.testing.assert_allclose(values["fc-weight"], w - 0.1 * dz.T @ x, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(values["fc-bias"], b - 0.1 * dz.sum(0), rtol=1e-5, atol=1e-6)


def test_conv2d_layer_weights_names_and_values():
    x = normal(2, 4, 6, 6)
    w_nchw, b = normal(6, 2, 3, 3, seed=1), normal(6, seed=2)
    w_nhwc = normal(5, 3, 3, 4, seed=3)
    names = {}

    @flow.global_function()
    def job(
        x: tp.Numpy.Placeholder((2, 4, 6, 6)), x_nhwc: tp.Numpy.Placeholder((2, 6, 6, 4))
    ) -> Tuple[(tp.Numpy,) * 3]:
        grouped = flow.layers.conv2d(
            x,
            6,
            3,
            strides=2,
            padding="SAME",
            groups=2,
            activation=flow.math.relu,
            kernel_initializer=FixedInit(w_nchw),
            bias_initializer=FixedInit(b),
            name="conv1",
        )
        names["conv1"] = grouped.op_name
        nhwc = flow.layers.conv2d(
            x_nhwc,
            5,
            (3, 3),
            padding="VALID",
            data_format="NHWC",
            kernel_initializer=FixedInit(w_nhwc),
            use_bias=False,
            name="conv2",
        )
        names["conv2"] = nhwc.op_name
        default = flow.layers.conv2d(x, 3, 1, weight_name="shared_w", bias_name="shared_b")
        names["default"] = default.op_name
        return grouped, nhwc, default

    grouped, nhwc, default = job(x, np.ascontiguousarray(x.transpose(0, 2, 3, 1)))
    pads = tuple(same_pads(6, 3, 2) for _ in range(2))
    want = np.maximum(np_conv2d(x, w_nchw, (2, 2), pads, groups=2) + b[:, None, None], 0)
    np.testing.assert_allclose(grouped, want, rtol=1e-4, atol=1e-5)
    want_nhwc = np_conv2d(x, w_nhwc.transpose(0, 3, 1, 2), (1, 1), ((0, 0), (0, 0)))
    np.testing.assert_allclose(nhwc, want_nhwc.transpose(0, 2, 3, 1), rtol=1e-4, atol=1e-5)
    assert names == {"conv1": "conv1-activation", "conv2": "conv2", "default": "Conv2d-bias_add"}
    values = variables()
    assert values["conv1-weight"].shape == (6, 2, 3, 3) and values["conv1-bias"].shape == (6,)
    assert values["conv2-weight"].shape == (5, 3, 3, 4) and "conv2-bias" not in values
    # default kernel initializer: xavier uniform, fan_in = 4 * 1 * 1, fan_out = 3 * 1 * 1
    kernel, bound = values["shared_w"], np.sqrt(6 / (4 + 3))
    assert kernel.shape == (3, 4, 1, 1) and np.all(np.abs(kernel) <= bound) and kernel.std() > 0
    assert not values["shared_b"].any()
    np.testing.assert_allclose(
        default, np.einsum("nchw,oc->nohw", x, kernel[:, :, 0, 0]), rtol=1e-4, atol=1e-5
    )


def test_conv2d_layer_sgd_step_matches_numpy_gradients():
    x, w, b = normal(2, 3, 7, 7), normal(4, 3, 3, 3, seed=1), normal(4, seed=2)
    g = normal(2, 4, 4, 4, seed=3)

    @flow.global_function(type="train")
    def job(x: tp.Numpy.Placeholder((2, 3, 7, 7))) -> tp.Numpy:
        out = flow.layers.conv2d(
            x,
            4,
            3,
            strides=2,
            padding="SAME",
            kernel_initializer=FixedInit(w),
            bias_initializer=FixedInit(b),
            name="conv",
        )
        sgd(0.01).minimize(flow.math.reduce_sum(out * g))
        return out

    assert job(x).shape == (2, 4, 4, 4)
    pads = tuple(same_pads(7, 3, 2) for _ in range(2))
    values = variables()
    dw = _np_conv_weight_grad(x, g, w.shape, (2, 2), pads)
    np.testing.assert_allclose(values["conv-weight"], w - 0.01 * dw, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(values["conv-bias"], b - 0.01 * g.sum((0, 2, 3)), rtol=1e-5)


def test_pool_aliases_and_a_small_convnet():
    assert flow.layers.max_pool2d is flow.nn.max_pool2d
    assert flow.layers.avg_pool2d is flow.nn.avg_pool2d

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 1, 8, 8))) -> tp.Numpy:
        h = flow.layers.conv2d(x, 4, 3, padding="SAME", activation=flow.nn.relu, name="c1")
        h = flow.layers.max_pool2d(h, 2, 2, "SAME")
        h = flow.layers.avg_pool2d(h, 2, 2, "VALID")
        return flow.layers.dense(flow.reshape(h, (2, -1)), 3, name="out")

    assert job(normal(2, 1, 8, 8)).shape == (2, 3)
