"""The CPU convolution lowering (weight gradient summed over batch pieces) against plain XLA.

The forward pass and the input gradient are the same computation as the reference, so they
must match exactly; the weight gradient adds the same products in another order, so it
matches to float32 rounding. A flowjob LeNet-style train step is checked against jax.grad.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import flowjob as flow
import flowjob.typing as tp
from flowjob._src import kernels
from flowjob._src.ops import _conv


@pytest.fixture(autouse=True)
def _xla_convolutions(monkeypatch):
    # These tests pin down the XLA lowerings; the optional oneDNN kernels (tests/kernels) would
    # otherwise take the float32 convolutions where they are installed.
    monkeypatch.setattr(kernels, "ENABLED", False)


def reference(x, w, strides, pads, dilations, groups, fmt):
    kernel = "OIHW" if fmt == "NCHW" else "OHWI"
    return lax.conv_general_dilated(
        x,
        w,
        strides,
        pads,
        rhs_dilation=dilations,
        dimension_numbers=(fmt, kernel, fmt),
        feature_group_count=groups,
    )


CASES = [  # batch, in, out, size, kernel, strides, pads, dilations, groups, format
    (21, 3, 8, 9, 3, (1, 1), ((1, 1), (1, 1)), (1, 1), 1, "NCHW"),  # uneven last piece
    (100, 1, 4, 12, 5, (1, 1), ((2, 2), (2, 2)), (1, 1), 1, "NCHW"),  # 13 pieces, 1 channel
    (17, 4, 6, 10, 3, (2, 1), ((1, 0), (0, 1)), (1, 2), 2, "NCHW"),  # strides, dilation, groups
    (19, 5, 4, 8, 3, (1, 2), ((1, 1), (0, 0)), (1, 1), 1, "NHWC"),
    (300, 2, 3, 6, 3, (1, 1), ((1, 1), (1, 1)), (1, 1), 1, "NCHW"),  # capped piece count
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"b{c[0]}-{c[9]}-g{c[8]}")
def test_chunked_weight_gradient_matches_plain_xla(case):
    batch, cin, cout, size, k, strides, pads, dil, groups, fmt = case
    rng = np.random.default_rng(batch)
    x_shape = (batch, cin, size, size) if fmt == "NCHW" else (batch, size, size, cin)
    w_shape = (cout, cin // groups, k, k) if fmt == "NCHW" else (cout, k, k, cin // groups)
    x = jnp.asarray(rng.normal(size=x_shape).astype(np.float32))
    w = jnp.asarray(rng.normal(size=w_shape).astype(np.float32))
    attrs = dict(strides=strides, pads=pads, dilations=dil, groups=groups, data_format=fmt)
    ours = jax.jit(lambda x, w: _conv.lower_conv2d(x, w, **attrs))
    ref = jax.jit(lambda x, w: reference(x, w, strides, pads, dil, groups, fmt))
    y, y_ref = ours(x, w), ref(x, w)
    np.testing.assert_array_equal(np.asarray(y), np.asarray(y_ref))
    g = jnp.asarray(rng.normal(size=y.shape).astype(np.float32))
    dx, dw = jax.jit(lambda x, w, g: jax.vjp(ours, x, w)[1](g))(x, w, g)
    dx_ref, dw_ref = jax.jit(lambda x, w, g: jax.vjp(ref, x, w)[1](g))(x, w, g)
    np.testing.assert_array_equal(np.asarray(dx), np.asarray(dx_ref))
    np.testing.assert_allclose(
        np.asarray(dw), np.asarray(dw_ref), rtol=2e-5, atol=2e-5 * float(jnp.abs(dw_ref).max())
    )
    # and against float64 NumPy-free ground truth: the float64 XLA gradient (64-bit mode on
    # here: flowjob turns it on only when its first session starts, which these tests skip)
    with jax.enable_x64(True):
        dw64 = jax.vjp(
            lambda w: reference(x.astype(jnp.float64), w, strides, pads, dil, groups, fmt),
            w.astype(jnp.float64),
        )[1](g.astype(jnp.float64))[0]
        assert dw64.dtype == jnp.float64
        err, err_ref = (float(jnp.abs(d.astype(jnp.float64) - dw64).max()) for d in (dw, dw_ref))
    assert err <= 4 * err_ref + 1e-6, (err, err_ref)


def test_small_batches_use_the_plain_convolution():
    x = jnp.ones((_conv.WGRAD_CHUNK, 2, 5, 5))
    w = jnp.ones((3, 2, 3, 3))
    attrs = dict(
        strides=(1, 1), pads=((1, 1), (1, 1)), dilations=(1, 1), groups=1, data_format="NCHW"
    )
    grad = jax.grad(lambda w: _conv.lower_conv2d(x, w, **attrs).sum())
    text = jax.jit(grad).lower(w).as_text()
    assert text.count("stablehlo.convolution") == 1  # one weight gradient (no forward needed)
    big = jnp.ones((3 * _conv.WGRAD_CHUNK, 2, 5, 5))
    grad_big = jax.grad(lambda w: _conv.lower_conv2d(big, w, **attrs).sum())
    assert jax.jit(grad_big).lower(w).as_text().count("stablehlo.convolution") == 3  # pieces


def test_flowjob_conv_train_step_matches_jax_grad(fresh_session):
    batch = 24
    rng = np.random.default_rng(3)
    images = rng.random((batch, 1, 8, 8), dtype=np.float32)
    labels = rng.integers(0, 4, batch).astype(np.int32)

    @flow.global_function(type="train")
    def train(
        x: tp.Numpy.Placeholder((batch, 1, 8, 8)),
        y: tp.Numpy.Placeholder((batch,), dtype=flow.int32),
    ) -> tp.Numpy:
        init = flow.random_normal_initializer(stddev=0.3)
        c = flow.layers.conv2d(
            x, 4, 3, padding="SAME", activation=flow.nn.relu, kernel_initializer=init, name="conv"
        )
        p = flow.nn.max_pool2d(c, ksize=2, strides=2, padding="VALID")
        logits = flow.layers.dense(
            flow.reshape(p, [batch, -1]), 4, kernel_initializer=init, name="out"
        )
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(y, logits)
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0
        ).minimize(loss)
        return loss

    def ref_loss(p):
        c = jax.nn.relu(
            reference(
                jnp.asarray(images), p["conv-weight"], (1, 1), ((1, 1), (1, 1)), (1, 1), 1, "NCHW"
            )
            + p["conv-bias"].reshape(1, -1, 1, 1)
        )
        pooled = lax.reduce_window(c, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
        logits = pooled.reshape(batch, -1) @ p["out-weight"].T + p["out-bias"]
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], 1))

    # get_all_variables traces the job, so these are the initial values
    before = {
        k: jnp.asarray(v.numpy())
        for k, v in flow.get_all_variables().items()
        if k.endswith(("weight", "bias"))
    }
    train(images, labels)
    after = {k: v.numpy() for k, v in flow.get_all_variables().items()}
    grads = jax.grad(ref_loss)(before)
    for name, value in before.items():
        np.testing.assert_allclose(after[name], value - 0.1 * grads[name], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("switch", ["INTERNAL_LAYOUT", "POOL_INTERNAL_LAYOUT"])
def test_nhwc_inside_switches_keep_results(monkeypatch, switch):
    """The channels-last switches (off by default, measured slower) compute the same."""
    rng = np.random.default_rng(7)
    x = jnp.asarray(rng.normal(size=(12, 3, 8, 8)).astype(np.float32))
    w = jnp.asarray(rng.normal(size=(4, 3, 3, 3)).astype(np.float32))
    # ties inside pooling windows: the gradient must still go to the first maximum
    x = x.at[:, :, 0, 1].set(x[:, :, 0, 0])

    def net(x, w):
        y = _conv.lower_conv2d(
            x,
            w,
            strides=(1, 1),
            pads=((1, 1), (1, 1)),
            dilations=(1, 1),
            groups=1,
            data_format="NCHW",
        )
        y = jnp.concatenate([y, x[:, :1]], axis=1)
        return _conv.lower_pool2d(
            y,
            mode="max",
            ksize=(2, 2),
            strides=(2, 2),
            pads=((0, 0), (0, 0)),
            ceil_mode=False,
            data_format="NCHW",
        )

    def run():
        out, vjp = jax.vjp(jax.jit(net), x, w)
        return (out, *vjp(jnp.ones_like(out) + jnp.arange(out.size).reshape(out.shape)))

    plain = run()
    monkeypatch.setattr(_conv, switch, "NHWC")
    switched = run()
    for a, b in zip(plain, switched):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-5)
