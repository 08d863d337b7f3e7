"""``flowjob/_src/ops/_convolution.py``: convolutions (1-D to 3-D, transposed) and pooling."""

from __future__ import annotations

from typing import Tuple

import jax
import numpy as np
import pytest
from ops_helpers import (
    FixedInit,
    nchw,
    nhwc,
    np_conv2d,
    np_conv_nd,
    numeric_grad,
    on_gpu,
    same_pads,
    sgd,
    value_and_grads,
    variables,
)

import flowjob as flow
import flowjob.typing as tp

# (name, weight shape OIHW, strides, padding argument, expected pads or None for SAME rule,
#  dilations, groups, data_format)
CONV_CASES = [
    ("same_s1", (4, 3, 3, 3), 1, "SAME", None, 1, 1, "NCHW"),
    ("same_s2_odd", (4, 3, 4, 3), 2, "SAME", None, 1, 1, "NCHW"),
    ("same_upper", (4, 3, 4, 3), 2, "SAME_UPPER", None, 1, 1, "NCHW"),
    ("valid_dilated", (2, 3, 3, 2), (2, 1), "VALID", ((0, 0), (0, 0)), 2, 1, "NCHW"),
    ("explicit_groups", (6, 1, 3, 3), 1, (0, 0, (1, 2), 1), ((1, 2), (1, 1)), 1, 3, "NCHW"),
    ("nhwc_same", (5, 3, 3, 3), 2, "SAME", None, 1, 1, "NHWC"),
    (
        "nhwc_explicit",
        (2, 3, 2, 3),
        1,
        ((0, 0), (1, 0), (0, 2), (0, 0)),
        ((1, 0), (0, 2)),
        (1, 2),
        1,
        "NHWC",
    ),
]


def _np_conv2d_transpose(x, w, out_hw, strides, pads):
    """Scatter form of TensorFlow's conv2d_transpose, NCHW, weights (in, out, kh, kw)."""
    n, _, h, wd = x.shape
    _, o, kh, kw = w.shape
    (sh, sw), ((pt, _), (pl, _)) = strides, pads
    full = np.zeros((n, o, (h - 1) * sh + kh + out_hw[0], (wd - 1) * sw + kw + out_hw[1]))
    for i in range(h):
        for j in range(wd):
            full[:, :, i * sh : i * sh + kh, j * sw : j * sw + kw] += np.einsum(
                "nc,cokl->nokl", x[:, :, i, j], w
            )
    return full[:, :, pt : pt + out_hw[0], pl : pl + out_hw[1]]


def test_conv2d_matches_numpy_reference():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 7, 8)).astype(np.float32)
    weights = [rng.standard_normal(c[1]).astype(np.float32) for c in CONV_CASES]
    feeds = [nhwc(w) if c[7] == "NHWC" else w for c, w in zip(CONV_CASES, weights)]
    specs = [tp.Numpy.Placeholder(f.shape) for f in feeds]

    @flow.global_function()
    def job(
        x: tp.Numpy.Placeholder((2, 3, 7, 8)),
        x_nhwc: tp.Numpy.Placeholder((2, 7, 8, 3)),
        w0: specs[0],
        w1: specs[1],
        w2: specs[2],
        w3: specs[3],
        w4: specs[4],
        w5: specs[5],
        w6: specs[6],
    ) -> Tuple[(tp.Numpy,) * 7]:
        outs = []
        for case, w in zip(CONV_CASES, (w0, w1, w2, w3, w4, w5, w6)):
            _, _, strides, padding, _, dilations, groups, fmt = case
            inp = x_nhwc if fmt == "NHWC" else x
            outs.append(
                flow.nn.conv2d(
                    inp, w, strides, padding, data_format=fmt, dilations=dilations, groups=groups
                )
            )
        return tuple(outs)

    outs = job(x, nhwc(x), *feeds)
    for case, w, got in zip(CONV_CASES, weights, outs):
        name, shape, strides, padding, pads, dilations, groups, fmt = case
        s = (strides, strides) if isinstance(strides, int) else strides
        d = (dilations, dilations) if isinstance(dilations, int) else dilations
        if pads is None:
            lower = padding != "SAME_UPPER"
            pads = tuple(
                same_pads(n, k, st, dd, lower) for n, k, st, dd in zip((7, 8), shape[2:], s, d)
            )
        want = np_conv2d(x, w, s, pads, d, groups)
        if fmt == "NHWC":
            got = nchw(got)
        assert got.shape == want.shape, name
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=name)


def test_same_padding_is_oneflow_same_lower():
    # width 7, window 2, stride 2: 4 outputs need one pad; OneFlow's SAME puts it first, so
    # the first window holds only x[0] while TensorFlow's SAME (SAME_UPPER) pairs x[0], x[1].
    x = np.array([[[[5, 9, 1, 2, 8, 3, 7]]]], np.float32)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((1, 1, 1, 7))) -> Tuple[(tp.Numpy,) * 4]:
        return (
            flow.nn.max_pool2d(x, (1, 2), (1, 2), "SAME"),
            flow.nn.max_pool2d(x, (1, 2), (1, 2), "SAME_UPPER"),
            flow.nn.avg_pool2d(x, (1, 2), (1, 2), "SAME"),
            flow.nn.avg_pool2d(x, (1, 2), (1, 2), "SAME_UPPER"),
        )

    lower_max, upper_max, lower_avg, upper_avg = (o.ravel().tolist() for o in job(x))
    assert lower_max == [5, 9, 8, 7] and upper_max == [9, 2, 8, 7]
    assert lower_avg == [5, 5, 5, 5] and upper_avg == [7, 1.5, 5.5, 7]


@pytest.mark.parametrize(
    "body, fragments",
    [
        (
            lambda x, w: flow.nn.conv2d(x, w, 1, "SAME", data_format="NHWC"),
            ["flow.nn.conv2d", "input channels"],
        ),
        (
            lambda x, w: flow.nn.conv2d(x, w, 1, "FULL"),
            ["flow.nn.conv2d", "padding must be", "'FULL'"],
        ),
        (lambda x, w: flow.nn.conv2d(x, w, 1, "SAME", data_format="NCWH"), ["data_format must be"]),
        (lambda x, w: flow.nn.conv2d(x, w, 0, "SAME"), ["strides", ">= 1"]),
        (
            lambda x, w: flow.nn.conv2d(x, w, 1, (1, 0, 1, 1)),
            ["padding entry 0", "batch or channel"],
        ),
        (lambda x, w: flow.nn.conv2d(x, w, 1, "VALID", groups=2), ["groups=2 must divide"]),
        (lambda x, w: flow.nn.max_pool2d(x, 7, 1, "VALID"), ["flow.nn.max_pool2d", "larger than"]),
        (lambda x, w: flow.nn.avg_pool2d(x, (2, 2, 2), 1, "VALID"), ["ksize", "1 or 2 ints"]),
    ],
)
def test_bad_conv_and_pool_arguments(body, fragments):
    @flow.global_function()
    def job(
        x: tp.Numpy.Placeholder((1, 3, 5, 5)), w: tp.Numpy.Placeholder((4, 3, 3, 3))
    ) -> tp.Numpy:
        return body(x, w)

    with pytest.raises(flow.OpError) as info:
        job(np.zeros((1, 3, 5, 5), np.float32), np.zeros((4, 3, 3, 3), np.float32))
    for fragment in fragments:
        assert fragment in str(info.value)
    assert f'File "{__file__}"' in str(info.value)


@pytest.mark.parametrize(
    "padding,in_hw,out_hw,strides",
    [
        ("VALID", (3, 4), (7, 9), (2, 2)),
        ("VALID", (3, 4), (8, 10), (2, 2)),  # output_padding: the extra row/column gets zeros
        ("SAME", (3, 4), (6, 8), (2, 2)),
        ("SAME", (4, 3), (7, 5), (2, 2)),  # odd padding: one more after (TensorFlow's SAME)
        ("SAME", (5, 5), (5, 5), (1, 1)),
    ],
)
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
        lambda a, b: flow.nn.conv2d_transpose(
            a, b, output_shape=out_shape, strides=strides, padding=padding
        ),
        x,
        w,
    )
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
    def job(
        x: tp.Numpy.Placeholder((1, 3, 4, 2)), w: tp.Numpy.Placeholder((2, 3, 3, 5))
    ) -> tp.Numpy:
        return flow.nn.conv2d_transpose(
            input=x,
            filters=w,
            output_shape=(1, 7, 9, 5),
            strides=2,
            padding="VALID",
            data_format="NHWC",
        )

    want = _np_conv2d_transpose(
        x.transpose(0, 3, 1, 2).astype(np.float64),
        w.transpose(0, 3, 1, 2),
        (7, 9),
        (2, 2),
        ((0, 0), (0, 0)),
    )
    np.testing.assert_allclose(job(x, w), want.transpose(0, 2, 3, 1), rtol=1e-4, atol=1e-5)

    @flow.global_function()
    def bad(
        x: tp.Numpy.Placeholder((1, 2, 3, 4)), w: tp.Numpy.Placeholder((2, 3, 3, 3))
    ) -> tp.Numpy:
        return flow.nn.conv2d_transpose(x, w, output_shape=(1, 3, 20, 20), strides=2)

    with pytest.raises(flow.OpError, match=r"conv2d_transpose.*output_shape"):
        bad(np.zeros((1, 2, 3, 4), np.float32), np.zeros((2, 3, 3, 3), np.float32))


def test_compat_conv2d_pads_same_like_tensorflow():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(1, 2, 6, 6)).astype(np.float32)
    w = rng.normal(size=(3, 2, 2, 2)).astype(np.float32)

    @flow.global_function()
    def job(
        x: tp.Numpy.Placeholder((1, 2, 6, 6)), w: tp.Numpy.Placeholder((3, 2, 2, 2))
    ) -> tp.Numpy:
        return flow.nn.compat_conv2d(x, w, strides=1, padding="SAME")

    pads = (same_pads(6, 2, 1, lower=False),) * 2  # (0, 1): the extra element after
    assert pads[0] == (0, 1)
    np.testing.assert_allclose(job(x, w), np_conv2d(x, w, (1, 1), pads), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "fmt,padding,strides,dilations,groups",
    [
        ("NCW", "VALID", (2,), (2,), 1),
        ("NWC", "SAME_UPPER", (2,), (1,), 1),
        ("NCW", [0, 0, (1, 2)], (1,), (1,), 2),
    ],
)
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
        return np_conv_nd(a, b, strides, pads, dilations, groups)

    if fmt == "NWC":
        value, (gx, gw), c = value_and_grads(
            lambda a, b: flow.nn.conv1d(a, b, strides, padding, "NWC", dilations, groups),
            x.transpose(0, 2, 1),
            w.transpose(0, 2, 1),
        )
        value, gx, gw, c = (
            value.transpose(0, 2, 1),
            gx.transpose(0, 2, 1),
            gw.transpose(0, 2, 1),
            c.transpose(0, 2, 1),
        )
    else:
        value, (gx, gw), c = value_and_grads(
            lambda a, b: flow.nn.conv1d(a, b, strides, padding, "NCW", dilations, groups), x, w
        )
    np.testing.assert_allclose(value, ref(x, w), rtol=1e-10, atol=1e-10)
    nx, nw = numeric_grad(ref, [x, w], c, eps=1e-5)
    np.testing.assert_allclose(gx, nx, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gw, nw, rtol=1e-5, atol=1e-6)


def test_conv3d_and_conv_layers():
    rng = np.random.default_rng(11)
    x = rng.normal(size=(1, 2, 4, 5, 3))
    w = rng.normal(size=(3, 2, 2, 3, 2))
    value, (gx, _), c = value_and_grads(lambda a, b: flow.nn.conv3d(a, b, (1, 2, 1), "SAME"), x, w)
    pads = tuple(same_pads(n, k, s) for n, k, s in zip((4, 5, 3), (2, 3, 2), (1, 2, 1)))
    want = np_conv_nd(x, w, (1, 2, 1), pads, (1, 1, 1))
    np.testing.assert_allclose(value, want, rtol=1e-10, atol=1e-10)
    (nx,) = numeric_grad(lambda a: np_conv_nd(a, w, (1, 2, 1), pads, (1, 1, 1)), [x], c, eps=1e-5)
    np.testing.assert_allclose(gx, nx, rtol=1e-5, atol=1e-6)

    @flow.global_function()
    def layers(
        x: tp.Numpy.Placeholder((2, 4, 9)), y: tp.Numpy.Placeholder((1, 2, 4, 5, 3))
    ) -> Tuple[tp.Numpy, tp.Numpy]:
        a = flow.layers.conv1d(
            x,
            8,
            3,
            padding="SAME",
            groups=2,
            name="c1",
            bias_initializer=flow.ones_initializer(),
            activation=flow.math.relu,
        )
        b = flow.layers.conv3d(y, 4, (1, 2, 2), data_format="NCDHW")
        return a, b

    a, b = layers(
        rng.normal(size=(2, 4, 9)).astype(np.float32),
        rng.normal(size=(1, 2, 4, 5, 3)).astype(np.float32),
    )
    assert a.shape == (2, 8, 9) and (a >= 0).all() and b.shape == (1, 4, 4, 4, 2)
    names = set(variables())
    assert {"c1-weight", "c1-bias", "Conv3d-weight", "Conv3d-bias"} <= names
    assert variables()["c1-weight"].shape == (8, 2, 3)


def _torch_deconv(x, w, stride, needed, dilation, extra, xp):
    """PyTorch's ConvTranspose2d by its definition: scatter every input pixel times the
    kernel, then cut padding_needed / 2 from each side (NCHW, weights (in, out, kh, kw))."""
    n, _, h, wd = x.shape
    _, out_c, kh, kw = w.shape
    full_h = (h - 1) * stride[0] + dilation[0] * (kh - 1) + 1 + extra[0]
    full_w = (wd - 1) * stride[1] + dilation[1] * (kw - 1) + 1 + extra[1]
    out = xp.zeros((n, out_c, full_h, full_w))
    for i in range(h):
        for j in range(wd):
            for a in range(kh):
                for b in range(kw):
                    contrib = xp.einsum("nc,co->no", x[:, :, i, j], w[:, :, a, b])
                    r, c = i * stride[0] + a * dilation[0], j * stride[1] + b * dilation[1]
                    if xp is np:
                        out[:, :, r, c] += contrib
                    else:
                        out = out.at[:, :, r, c].add(contrib)
    ph, pw = needed[0] // 2, needed[1] // 2
    return out[:, :, ph : full_h - ph, pw : full_w - pw]


@pytest.mark.parametrize(
    "stride, needed, dilation, extra",
    [
        ((2, 2), (2, 2), (1, 1), (1, 1)),
        ((1, 2), (0, 2), (2, 1), (0, 0)),
        ((3, 2), (4, 0), (1, 1), (2, 1)),
    ],
)
def test_torch_conv2d_transpose_matches_pytorch_arithmetic_and_jax_grad(
    stride, needed, dilation, extra
):
    import jax.numpy as jnp

    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 3, 4, 3))
    w = rng.normal(size=(3, 2, 3, 2))
    value, (gx, gw), cot = value_and_grads(
        lambda a, b: flow.nn.torch_conv2d_transpose(
            a, b, output_padding=extra, strides=stride, padding_needed=needed, dilations=dilation
        ),
        x,
        w,
    )
    want = _torch_deconv(x, w, stride, needed, dilation, extra, np)
    np.testing.assert_allclose(value, want, rtol=1e-10, atol=1e-12)
    want_gx, want_gw = jax.grad(
        lambda a, b: (_torch_deconv(a, b, stride, needed, dilation, extra, jnp) * cot).sum(),
        argnums=(0, 1),
    )(x, w)
    np.testing.assert_allclose(gx, want_gx, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gw, want_gw, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fmt", ["NCDHW", "NDHWC"])
def test_grouped_conv3d_weight_gradient_sums_precisely(fmt):
    """A float32 grouped conv3d's weight gradient sums 8 x 14^3 products per entry; it stays
    within 1e-6 relative of the float64 sum (TensorFlow, OneFlow's reference in
    test_layers_conv3d.py, is as precise; XLA:CPU's grouped weight gradient was 2.8e-6 off
    here and 1.2e-5 on that file's 10 x 18^3 sums)."""
    rng = np.random.default_rng(12)
    x = rng.uniform(0, 100, (8, 2, 16, 16, 16)).astype(np.float32)  # NCDHW
    w = rng.uniform(0, 100, (4, 1, 3, 3, 3)).astype(np.float32)  # OIDHW, groups=2
    channels_last = fmt == "NDHWC"
    feed_x = x.transpose(0, 2, 3, 4, 1) if channels_last else x
    feed_w = w.transpose(0, 2, 3, 4, 1) if channels_last else w
    seen = {}

    @flow.global_function(type="train")
    def job(a: tp.Numpy.Placeholder(feed_x.shape)) -> None:
        k = flow.get_variable("k", shape=feed_w.shape, initializer=FixedInit(feed_w))
        flow.watch_diff(k, lambda g: seen.setdefault("dw", g))
        y = flow.nn.conv3d(a, k, 1, "VALID", data_format=fmt, groups=2)
        sgd(0.0).minimize(flow.math.reduce_sum(y))

    job(feed_x)
    flow.sync_default_session()
    dw = seen["dw"].transpose(0, 4, 1, 2, 3) if channels_last else seen["dw"]
    # d sum(y) / d w[o, 0, i, j, l] = sum of x[:, group of o] over the window offset (i, j, l)
    windows = np.lib.stride_tricks.sliding_window_view(x.astype(np.float64), (3, 3, 3), (2, 3, 4))
    per_group = np.einsum("ncdhwijl->cijl", windows)  # (2, 3, 3, 3): one per input channel
    want = np.repeat(per_group, 2, axis=0)[:, None]  # outputs 0-1: group 0, 2-3: group 1
    assert dw.dtype == np.float32
    # cuDNN sums in another order: 2.3e-6 on an H200 (TensorFlow's GPU kernels likewise)
    np.testing.assert_allclose(dw, want, rtol=1e-5 if on_gpu() else 1e-6)


@pytest.mark.parametrize("channels, groups, expected", [(64, 64, 1), (16, 8, 8), (16, 1, 1)])
def test_2d_depthwise_convolutions_are_not_split_per_group(monkeypatch, channels, groups, expected):
    """On the CPU a grouped 2-D convolution runs as one convolution per group (XLA's grouped
    kernel is slow there), but a depthwise one (one input channel per group) stays one XLA
    convolution: as fast, and compiled in a fraction of the time. Values match either way."""
    from jax import lax

    from flowjob._src import kernels
    from flowjob._src.ops._conv import lower_conv2d
    from flowjob._src.ops._modes import DataFormat

    monkeypatch.setenv("FLOWJOB_CONV_KERNEL", "xla")  # XLA's lowering, whatever is installed
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, channels, 9, 9)).astype(np.float32)
    w = rng.standard_normal((channels, channels // groups, 3, 3)).astype(np.float32)

    def ours(a, b):
        with kernels.lowering_for("cpu"):
            return lower_conv2d(
                a, b, strides=(1, 1), pads=((1, 1), (1, 1)), dilations=(1, 1), groups=groups,
                data_format=DataFormat.NCHW,
            )  # fmt: skip

    assert jax.jit(ours).lower(x, w).as_text().count("stablehlo.convolution") == expected
    want = lax.conv_general_dilated(
        x, w, (1, 1), ((1, 1), (1, 1)), dimension_numbers=("NCHW", "OIHW", "NCHW"),
        feature_group_count=groups, precision="highest",
    )  # fmt: skip
    np.testing.assert_allclose(
        np.asarray(jax.jit(ours)(x, w)), np.asarray(want), rtol=1e-5, atol=1e-4
    )
