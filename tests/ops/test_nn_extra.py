"""flow.nn activations, functional losses, conv2d_transpose/compat_conv2d and the softmax
cross-entropy gradient, against NumPy and finite differences."""

from __future__ import annotations

from typing import Tuple

import numpy as np
import pytest
from ops_helpers import np_conv2d, numeric_grad, same_pads, value_and_grads, variables

import flowjob as flow
import flowjob.typing as tp


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


ACTIVATIONS = {
    "elu": (lambda b: flow.nn.elu(b, alpha=0.7), lambda x: np.where(x > 0, x, 0.7 * np.expm1(x))),
    "relu6": (flow.nn.relu6, lambda x: np.clip(x, 0, 6)),
    "hardtanh": (lambda b: flow.nn.hardtanh(b, -0.5, 2.0), lambda x: np.clip(x, -0.5, 2.0)),
    "hardsigmoid": (flow.nn.hardsigmoid, lambda x: np.clip(x / 6 + 0.5, 0, 1)),
    "hardswish": (flow.nn.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "swish": (lambda b: flow.nn.swish(b, beta=1.5), lambda x: x * _sigmoid(1.5 * x)),
    "mish": (flow.nn.mish, lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    "logsoftmax": (flow.nn.logsoftmax,
                   lambda x: x - np.log(np.sum(np.exp(x), axis=-1, keepdims=True))),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_value_and_gradient(name):
    fn, ref = ACTIVATIONS[name]
    # values away from the kinks (-3, 0, 3, 6, clip bounds) so finite differences are exact
    x = np.array([[-7.1, -3.4, -2.2, -0.8, -0.2], [0.3, 1.1, 2.6, 4.4, 7.3]])
    value, (g,), c = value_and_grads(fn, x)
    np.testing.assert_allclose(value, ref(x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g, numeric_grad(ref, [x], c)[0], rtol=1e-5, atol=1e-7)


def test_relu6_gradient_is_zero_at_the_bounds_as_oneflow():
    x = np.array([0.0, 6.0, 3.0])
    value, (g,), c = value_and_grads(flow.nn.relu6, x)
    np.testing.assert_array_equal(value, [0, 6, 3])
    np.testing.assert_allclose(g, [0, 0, c[2]])


LOSSES = {
    "MSELoss": lambda x, t: (t - x) ** 2,
    "L1Loss": lambda x, t: np.abs(t - x),
    "BCELoss": lambda x, t: -(t * np.log(x) + (1 - t) * np.log(1 - x)),
    "BCEWithLogitsLoss": lambda x, t: -(t * np.log(_sigmoid(x))
                                         + (1 - t) * np.log(1 - _sigmoid(x))),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_losses_value_and_gradient(name, reduction):
    rng = np.random.default_rng(3)
    x = rng.uniform(0.1, 0.9, (3, 4))
    t = rng.uniform(0, 1, (3, 4))
    elementwise = LOSSES[name]
    reduce = {"none": lambda v: v, "mean": lambda v: np.mean(v).reshape(1),
              "sum": lambda v: np.sum(v).reshape(1)}[reduction]
    value, (gx, _), c = value_and_grads(
        lambda a, b: getattr(flow.nn, name)(a, b, reduction=reduction), x, t)
    want = reduce(elementwise(x, t))
    assert value.shape == want.shape
    np.testing.assert_allclose(value, want, rtol=1e-10)
    np.testing.assert_allclose(gx, numeric_grad(lambda a: reduce(elementwise(a, t)), [x], c)[0],
                               rtol=1e-5, atol=1e-8)


def test_bce_weights_and_bad_arguments():
    x = np.array([[0.2, 0.7], [0.9, 0.4]])
    t = np.array([[0.0, 1.0], [1.0, 0.0]])
    w = np.array([[1.0, 2.0], [0.5, 3.0]])
    pw = np.array([2.0, 0.5])
    value, _, _ = value_and_grads(
        lambda a, b, c: flow.nn.BCELoss(a, b, weight=c, reduction="sum"), x, t, w)
    np.testing.assert_allclose(value, [np.sum(w * LOSSES["BCELoss"](x, t))])
    value, _, _ = value_and_grads(
        lambda a, b, p: flow.nn.BCEWithLogitsLoss(a, b, pos_weight=p, reduction="none"), x, t, pw)
    want = -(pw * t * np.log(_sigmoid(x)) + (1 - t) * np.log(1 - _sigmoid(x)))
    np.testing.assert_allclose(value, want, rtol=1e-10)

    @flow.global_function()
    def bad(x: tp.Numpy.Placeholder((2, 2)), t: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        return flow.nn.MSELoss(x, t)

    with pytest.raises(flow.OpError, match=r"MSELoss.*same shape"):
        bad(np.zeros((2, 2), np.float32), np.zeros((2, 3), np.float32))

    @flow.global_function()
    def bad_reduction(x: tp.Numpy.Placeholder((2, 2))) -> tp.Numpy:
        return flow.nn.L1Loss(x, x, reduction="avg")

    with pytest.raises(flow.OpError, match=r"L1Loss.*reduction must be one of"):
        bad_reduction(np.zeros((2, 2), np.float32))


def test_softmax_cross_entropy_gradient_is_p_minus_labels():
    rng = np.random.default_rng(4)
    logits = rng.normal(size=(3, 5))
    labels = rng.uniform(0, 1, (3, 5))  # not normalised: p - labels differs from the autodiff
    value, (g_labels, g_logits), c = value_and_grads(
        lambda lab, lo: flow.nn.softmax_cross_entropy_with_logits(lab, lo), labels, logits)
    e = np.exp(logits - logits.max(1, keepdims=True))
    p = e / e.sum(1, keepdims=True)
    np.testing.assert_allclose(value, -np.sum(labels * np.log(p), axis=1), rtol=1e-10)
    np.testing.assert_allclose(g_logits, c[:, None] * (p - labels), rtol=1e-10)
    np.testing.assert_array_equal(g_labels, np.zeros_like(labels))


def _np_conv2d_transpose(x, w, out_hw, strides, pads):
    """Scatter form of TensorFlow's conv2d_transpose, NCHW, weights (in, out, kh, kw)."""
    n, _, h, wd = x.shape
    _, o, kh, kw = w.shape
    (sh, sw), ((pt, _), (pl, _)) = strides, pads
    full = np.zeros((n, o, (h - 1) * sh + kh + out_hw[0], (wd - 1) * sw + kw + out_hw[1]))
    for i in range(h):
        for j in range(wd):
            full[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw] += np.einsum(
                "nc,cokl->nokl", x[:, :, i, j], w)
    return full[:, :, pt:pt + out_hw[0], pl:pl + out_hw[1]]


@pytest.mark.parametrize("padding,in_hw,out_hw,strides", [
    ("VALID", (3, 4), (7, 9), (2, 2)),
    ("VALID", (3, 4), (8, 10), (2, 2)),  # output_padding: the extra row/column gets zeros
    ("SAME", (3, 4), (6, 8), (2, 2)),
    ("SAME", (4, 3), (7, 5), (2, 2)),  # odd padding: one more after (TensorFlow's SAME)
    ("SAME", (5, 5), (5, 5), (1, 1)),
])
def test_conv2d_transpose_matches_the_scatter_definition(padding, in_hw, out_hw, strides):
    rng = np.random.default_rng(5)
    x = rng.normal(size=(2, 3) + in_hw)
    w = rng.normal(size=(3, 2, 3, 3))
    out_shape = (2, 2) + out_hw
    if padding == "VALID":
        pads = ((0, 0), (0, 0))
    else:
        pads = tuple(same_pads(n, 3, s, lower=False) for n, s in zip(out_hw, strides))

    def ref(a, b):
        return _np_conv2d_transpose(a, b, out_hw, strides, pads)

    value, (gx, gw), c = value_and_grads(
        lambda a, b: flow.nn.conv2d_transpose(a, b, output_shape=out_shape, strides=strides,
                                              padding=padding), x, w)
    np.testing.assert_allclose(value, ref(x, w), rtol=1e-10, atol=1e-10)
    # the transposed convolution is the adjoint of conv2d: <conv2d(z), x> = <z, deconv(x)>
    z = rng.normal(size=out_shape)
    conv = np_conv2d(z, w, strides, pads)  # w read as OIHW: O = 3 = x's channels
    np.testing.assert_allclose(np.sum(conv * x), np.sum(z * value), rtol=1e-9)
    nx, nw = numeric_grad(ref, [x, w], c, eps=1e-5)
    np.testing.assert_allclose(gx, nx, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gw, nw, rtol=1e-5, atol=1e-6)


def test_conv2d_transpose_nhwc_and_bad_output_shape():
    rng = np.random.default_rng(6)
    x = rng.normal(size=(1, 3, 4, 2)).astype(np.float32)
    w = rng.normal(size=(2, 3, 3, 5)).astype(np.float32)  # (in, kh, kw, out)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((1, 3, 4, 2)), w: tp.Numpy.Placeholder((2, 3, 3, 5))
            ) -> tp.Numpy:
        return flow.nn.conv2d_transpose(input=x, filters=w, output_shape=(1, 7, 9, 5),
                                        strides=2, padding="VALID", data_format="NHWC")

    want = _np_conv2d_transpose(x.transpose(0, 3, 1, 2).astype(np.float64),
                                w.transpose(0, 3, 1, 2), (7, 9), (2, 2), ((0, 0), (0, 0)))
    np.testing.assert_allclose(job(x, w), want.transpose(0, 2, 3, 1), rtol=1e-4, atol=1e-5)

    @flow.global_function()
    def bad(x: tp.Numpy.Placeholder((1, 2, 3, 4)), w: tp.Numpy.Placeholder((2, 3, 3, 3))
            ) -> tp.Numpy:
        return flow.nn.conv2d_transpose(x, w, output_shape=(1, 3, 20, 20), strides=2)

    with pytest.raises(flow.OpError, match=r"conv2d_transpose.*output_shape"):
        bad(np.zeros((1, 2, 3, 4), np.float32), np.zeros((2, 3, 3, 3), np.float32))


def test_compat_conv2d_pads_same_like_tensorflow():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(1, 2, 6, 6)).astype(np.float32)
    w = rng.normal(size=(3, 2, 2, 2)).astype(np.float32)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((1, 2, 6, 6)), w: tp.Numpy.Placeholder((3, 2, 2, 2))
            ) -> tp.Numpy:
        return flow.nn.compat_conv2d(x, w, strides=1, padding="SAME")

    pads = (same_pads(6, 2, 1, lower=False),) * 2  # (0, 1): the extra element after
    assert pads[0] == (0, 1)
    np.testing.assert_allclose(job(x, w), np_conv2d(x, w, (1, 1), pads), rtol=1e-4, atol=1e-5)


def test_kl_div_loss_both_target_forms():
    rng = np.random.default_rng(8)
    log_p = np.log(rng.dirichlet(np.ones(4), size=3))
    target = rng.dirichlet(np.ones(4), size=3)
    target[0, 1] = 0.0  # a zero target contributes 0 (and no NaN gradient)

    def ref(x, t):
        return np.where(t > 0, t * (np.log(np.where(t > 0, t, 1)) - x), 0)

    value, (g, _), c = value_and_grads(
        lambda x, t: flow.nn.KLDivLoss(x, t, reduction="none"), log_p, target)
    np.testing.assert_allclose(value, ref(log_p, target), rtol=1e-10)
    np.testing.assert_allclose(g, numeric_grad(lambda x: ref(x, target), [log_p], c)[0],
                               rtol=1e-5, atol=1e-8)
    log_t = np.log(target + 0.1)
    value, _, _ = value_and_grads(
        lambda x, t: flow.nn.KLDivLoss(x, t, log_target=True, reduction="sum"), log_p, log_t)
    np.testing.assert_allclose(value, [np.sum(np.exp(log_t) * (log_t - log_p))], rtol=1e-10)


def test_margin_ranking_and_triplet_losses():
    rng = np.random.default_rng(9)
    a, b = rng.normal(size=(6,)), rng.normal(size=(6,))
    y = np.array([1.0, -1.0, 1.0, 1.0, -1.0, -1.0])
    value, (ga, _, _), c = value_and_grads(
        lambda u, v, t: flow.nn.MarginRankingLoss(u, v, t, margin=0.3, reduction="none"),
        a, b, y)
    want = np.maximum(0.3 - y * (a - b), 0)
    np.testing.assert_allclose(value, want)
    np.testing.assert_allclose(ga, np.where(want > 0, -y * c, 0))

    anc, pos, neg = (rng.normal(size=(4, 3)) for _ in range(3))
    for p, swap in ((2.0, False), (1.0, False), (2.0, True)):
        def ref(x, q, n, p=p, swap=swap):
            def dist(u, v):
                return np.sum(np.abs(u - v + 1e-6) ** p, axis=1) ** (1 / p)

            d_neg = np.minimum(dist(x, n), dist(q, n)) if swap else dist(x, n)
            return np.maximum(1.0 + dist(x, q) - d_neg, 0)

        value, (g, _, _), c = value_and_grads(
            lambda x, q, n, p=p, swap=swap: flow.nn.TripletMarginLoss(
                x, q, n, p=p, swap=swap, reduction="none"), anc, pos, neg)
        np.testing.assert_allclose(value, ref(anc, pos, neg), rtol=1e-10)
        np.testing.assert_allclose(g, numeric_grad(lambda x: ref(x, pos, neg), [anc], c)[0],
                                   rtol=1e-5, atol=1e-7)


def test_smooth_l1_loss():
    x = np.array([[-2.0, -0.3, 0.2], [0.9, 1.5, 0.0]])
    y = np.zeros_like(x)

    def ref(p, beta):
        d = np.abs(p)
        return np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)

    for beta in (1.0, 0.5):
        value, (g, _), c = value_and_grads(
            lambda p, t, beta=beta: flow.smooth_l1_loss(p, t, beta=beta), x + 0.01, y)
        np.testing.assert_allclose(value, ref(x + 0.01, beta), rtol=1e-12)
        want = numeric_grad(lambda p, beta=beta: ref(p, beta), [x + 0.01], c)[0]
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-8)


def _np_conv_nd(x, w, strides, pads, dilations, groups=1):
    """Channels-first N-d convolution by explicit loops over output positions (float64)."""
    nd = x.ndim - 2
    xp = np.pad(x, ((0, 0), (0, 0)) + tuple(pads))
    o, cg = w.shape[:2]
    k = w.shape[2:]
    outs = [(xp.shape[2 + i] - (k[i] - 1) * dilations[i] - 1) // strides[i] + 1
            for i in range(nd)]
    out = np.zeros((x.shape[0], o, *outs))
    og = o // groups
    for g in range(groups):
        xs, ws = xp[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og]
        for pos in np.ndindex(*outs):
            index = (slice(None), slice(None)) + tuple(
                slice(p * s, p * s + (kk - 1) * d + 1, d)
                for p, s, kk, d in zip(pos, strides, k, dilations))
            out[(slice(None), slice(g * og, (g + 1) * og)) + pos] = np.tensordot(
                xs[index], ws, axes=(list(range(1, nd + 2)), list(range(1, nd + 2))))
    return out


@pytest.mark.parametrize("fmt,padding,strides,dilations,groups", [
    ("NCW", "VALID", (2,), (2,), 1),
    ("NWC", "SAME_UPPER", (2,), (1,), 1),
    ("NCW", [0, 0, (1, 2)], (1,), (1,), 2),
])
def test_conv1d_values_and_gradients(fmt, padding, strides, dilations, groups):
    rng = np.random.default_rng(10)
    x = rng.normal(size=(2, 4, 9))  # NCW
    w = rng.normal(size=(6, 4 // groups, 3))
    if padding == "VALID":
        pads = ((0, 0),)
    elif padding == "SAME_UPPER":
        pads = (same_pads(9, 3, 2, lower=False),)
    else:
        pads = ((1, 2),)

    def ref(a, b):
        return _np_conv_nd(a, b, strides, pads, dilations, groups)

    if fmt == "NWC":
        value, (gx, gw), c = value_and_grads(
            lambda a, b: flow.nn.conv1d(a, b, strides, padding, "NWC", dilations, groups),
            x.transpose(0, 2, 1), w.transpose(0, 2, 1))
        value, gx, gw, c = (value.transpose(0, 2, 1), gx.transpose(0, 2, 1),
                            gw.transpose(0, 2, 1), c.transpose(0, 2, 1))
    else:
        value, (gx, gw), c = value_and_grads(
            lambda a, b: flow.nn.conv1d(a, b, strides, padding, "NCW", dilations, groups), x, w)
    np.testing.assert_allclose(value, ref(x, w), rtol=1e-10, atol=1e-10)
    nx, nw = numeric_grad(ref, [x, w], c, eps=1e-5)
    np.testing.assert_allclose(gx, nx, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gw, nw, rtol=1e-5, atol=1e-6)


def test_conv3d_and_conv_layers():
    rng = np.random.default_rng(11)
    x = rng.normal(size=(1, 2, 4, 5, 3))
    w = rng.normal(size=(3, 2, 2, 3, 2))
    value, (gx, _), c = value_and_grads(
        lambda a, b: flow.nn.conv3d(a, b, (1, 2, 1), "SAME"), x, w)
    pads = tuple(same_pads(n, k, s) for n, k, s in zip((4, 5, 3), (2, 3, 2), (1, 2, 1)))
    want = _np_conv_nd(x, w, (1, 2, 1), pads, (1, 1, 1))
    np.testing.assert_allclose(value, want, rtol=1e-10, atol=1e-10)
    nx, = numeric_grad(lambda a: _np_conv_nd(a, w, (1, 2, 1), pads, (1, 1, 1)), [x], c, eps=1e-5)
    np.testing.assert_allclose(gx, nx, rtol=1e-5, atol=1e-6)

    @flow.global_function()
    def layers(x: tp.Numpy.Placeholder((2, 4, 9)),
               y: tp.Numpy.Placeholder((1, 2, 4, 5, 3))) -> Tuple[tp.Numpy, tp.Numpy]:
        a = flow.layers.conv1d(x, 8, 3, padding="SAME", groups=2, name="c1",
                               bias_initializer=flow.ones_initializer(),
                               activation=flow.math.relu)
        b = flow.layers.conv3d(y, 4, (1, 2, 2), data_format="NCDHW")
        return a, b

    a, b = layers(rng.normal(size=(2, 4, 9)).astype(np.float32),
                  rng.normal(size=(1, 2, 4, 5, 3)).astype(np.float32))
    assert a.shape == (2, 8, 9) and (a >= 0).all() and b.shape == (1, 4, 4, 4, 2)
    names = set(variables())
    assert {"c1-weight", "c1-bias", "Conv3d-weight", "Conv3d-bias"} <= names
    assert variables()["c1-weight"].shape == (8, 2, 3)
