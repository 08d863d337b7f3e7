"""``flowjob/_src/ops/_conv.py``'s 2-D pooling lowerings against NumPy references: values, the
max-pool gradient's tie rule and the reduce-window-free path of non-overlapping windows."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from ops_helpers import nchw, nhwc, same_pads, sgd

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.ops import _conv


def _out_size(n, k, s, pad, ceil_mode):
    span = n + pad[0] + pad[1] - k
    o = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (o - 1) * s >= n + pad[0]:
        o -= 1
    return o


def np_pool(x, mode, k, s, pads, ceil_mode=False):
    """NCHW pooling over the real elements of each window (padding never counts)."""
    n, c, h, w = x.shape
    ho, wo = (
        _out_size(h, k[0], s[0], pads[0], ceil_mode),
        _out_size(w, k[1], s[1], pads[1], ceil_mode),
    )
    out = np.zeros((n, c, ho, wo))
    for i in range(ho):
        r0 = i * s[0] - pads[0][0]
        for j in range(wo):
            c0 = j * s[1] - pads[1][0]
            win = x[:, :, max(r0, 0) : min(r0 + k[0], h), max(c0, 0) : min(c0 + k[1], w)]
            win = win.reshape(n, c, -1).astype(np.float64)
            out[:, :, i, j] = win.max(-1) if mode == "max" else win.mean(-1)
    return out


def np_max_pool_grad(x, g, k, s, pads):
    """Routes each output gradient to the first (row-major) maximum of its window."""
    n, c, h, w = x.shape
    dx = np.zeros_like(x, dtype=np.float64)
    for i in range(g.shape[2]):
        r0 = i * s[0] - pads[0][0]
        for j in range(g.shape[3]):
            c0 = j * s[1] - pads[1][0]
            rows = range(max(r0, 0), min(r0 + k[0], h))
            cols = range(max(c0, 0), min(c0 + k[1], w))
            for b in range(n):
                for ch in range(c):
                    best = max((x[b, ch, r, q], -(r * w + q)) for r in rows for q in cols)
                    pos = -best[1]
                    dx[b, ch, pos // w, pos % w] += g[b, ch, i, j]
    return dx


# (ksize, strides, padding argument, ceil_mode); the first ones have ksize == strides
POOL_CASES = [
    ((2, 2), (2, 2), "VALID", False),
    ((2, 2), (2, 2), "SAME", False),
    ((3, 2), (3, 2), "VALID", True),
    ((2, 3), (2, 3), (0, 0, (1, 0), 2), False),
    ((3, 3), (2, 2), "SAME", False),
    ((3, 3), (1, 1), "VALID", False),
    ((3, 2), (2, 1), "SAME_UPPER", False),
    ((3, 3), (2, 2), "VALID", True),
    ((2, 3), (1, 2), (0, 0, 1, (0, 1)), True),
]


def _pool_pads(case, h, w):
    k, s, padding, _ = case
    if isinstance(padding, str):
        if padding == "VALID":
            return ((0, 0), (0, 0))
        lower = padding != "SAME_UPPER"
        return tuple(same_pads(n, kk, ss, 1, lower) for n, kk, ss in zip((h, w), k, s))
    return tuple((p, p) if isinstance(p, int) else tuple(p) for p in padding[2:])


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
def test_pooling_matches_numpy_reference(fmt):
    x = np.random.default_rng(1).standard_normal((2, 3, 7, 8)).astype(np.float32)
    feed = nhwc(x) if fmt == "NHWC" else x

    def explicit(padding):
        if isinstance(padding, str) or fmt == "NCHW":
            return padding
        return (padding[0], padding[2], padding[3], padding[1])

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder(feed.shape)) -> tp.Bundle[tp.Numpy]:
        return [
            (
                flow.nn.max_pool2d(x, k, s, explicit(p), data_format=fmt, ceil_mode=c),
                flow.nn.avg_pool2d(x, k, s, explicit(p), data_format=fmt, ceil_mode=c),
            )
            for k, s, p, c in POOL_CASES
        ]

    for case, (got_max, got_avg) in zip(POOL_CASES, job(feed)):
        pads = _pool_pads(case, 7, 8)
        for mode, got in (("max", got_max), ("avg", got_avg)):
            want = np_pool(x, mode, case[0], case[1], pads, case[3])
            got = nchw(got) if fmt == "NHWC" else got
            assert got.shape == want.shape, (mode, case)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"{mode} {case}")


@pytest.mark.parametrize(
    "case",
    [POOL_CASES[1], POOL_CASES[3], POOL_CASES[4], POOL_CASES[8]],
    ids=["blocks_same", "blocks_explicit", "windows_same", "windows_ceil"],
)
def test_max_pool_gradient_goes_to_the_first_maximum(case):
    # small integers make many ties inside windows
    x = np.random.default_rng(2).integers(0, 3, (2, 2, 7, 8)).astype(np.float32)
    k, s, padding, ceil_mode = case
    pads = _pool_pads(case, 7, 8)
    out_shape = np_pool(x, "max", k, s, pads, ceil_mode).shape
    g = np.random.default_rng(3).standard_normal(out_shape).astype(np.float32)
    seen = {}

    @flow.global_function(type="train")
    def job(x: tp.Numpy.Placeholder((2, 2, 7, 8))) -> tp.Numpy:
        v = flow.get_variable("v", shape=(1,), initializer=flow.zeros_initializer())
        xv = x + v
        flow.watch_diff(xv, lambda d: seen.setdefault("dx", d))
        pooled = flow.nn.max_pool2d(xv, k, s, padding, ceil_mode=ceil_mode)
        loss = flow.math.reduce_sum(pooled * g)
        sgd(0.0).minimize(loss)
        return pooled

    job(x)
    flow.sync_default_session()
    want = np_max_pool_grad(x, g, k, s, pads)
    np.testing.assert_allclose(seen["dx"], want, rtol=1e-6, atol=1e-6)


def test_nonoverlapping_pooling_avoids_reduce_window():
    x = jax.ShapeDtypeStruct((2, 3, 8, 8), np.float32)

    def program(**kw):  # the jaxpr's text, custom_vjp bodies included
        return str(jax.make_jaxpr(lambda v: _conv.lower_pool2d(v, **kw))(x))

    common = dict(mode="max", pads=((0, 0), (0, 0)), ceil_mode=False, data_format="NCHW")
    assert "reduce_window" not in program(ksize=(2, 2), strides=(2, 2), **common)
    assert "reduce_window" in program(ksize=(3, 3), strides=(2, 2), **common)


@pytest.mark.parametrize(
    "window, strides, padding",
    [
        ((1, 1, 3, 3), (1, 1, 2, 2), ((0, 0), (0, 0), (1, 1), (1, 1))),  # ResNet's stem pool
        ((1, 3, 2, 1), (1, 1, 2, 1), ((0, 0), (0, 2), (1, 0), (0, 0))),  # NHWC-like, uneven
        ((1, 1, 3, 3), (1, 1, 1, 1), ((0, 0), (0, 0), (0, 0), (0, 0))),
    ],
)
def test_overlapping_max_pool_gradient_matches_reduce_window_and_builds_no_iota(
    window, strides, padding
):
    from jax import lax

    from flowjob._src.ops import _window_max

    # ReLU'd small integers: many ties, which both must route to the first maximum.
    rng = np.random.default_rng(4)
    x = np.maximum(rng.integers(-2, 3, (2, 5, 9, 8)), 0).astype(np.float32)

    def reference(v):
        return lax.reduce_window(v, -np.inf, lax.max, window, strides, padding)

    def ours(v):
        return _window_max.window_max(v, -np.inf, window, strides, padding)

    g = rng.standard_normal(reference(x).shape).astype(np.float32)
    np.testing.assert_array_equal(ours(x), reference(x))
    want = jax.vjp(reference, x)[1](g)[0]
    got = jax.jit(lambda v, d: jax.vjp(ours, v)[1](d)[0])
    np.testing.assert_allclose(got(x, g), want, rtol=1e-6, atol=1e-6)
    hlo = got.lower(x, g).compile().as_text()
    assert " iota(" not in hlo and " select-and-scatter(" not in hlo  # the ops, not names
    reference_hlo = jax.jit(lambda v, d: jax.vjp(reference, v)[1](d)[0]).lower(x, g)
    assert " select-and-scatter(" in reference_hlo.as_text(dialect="hlo")  # what we avoid


@pytest.mark.parametrize(
    "axes, ksize",
    [((2, 3), (2, 2)), ((1, 2), (3, 2)), ((2, 3), (5, 4))],  # NCHW, NHWC, a reduced window
    ids=["2x2", "nhwc_3x2", "5x4"],
)
def test_block_max_and_its_gradient_match_reduce_window_with_ties(axes, ksize):
    from jax import lax

    from flowjob._src.ops import _window_max

    rng = np.random.default_rng(5)
    # ReLU'd small integers: ties everywhere, routed to each window's first maximum
    x = np.maximum(rng.integers(-2, 3, (2, 6, 10, 8)), 0).astype(np.float32)
    window = [1] * 4
    for a, k in zip(axes, ksize):
        window[a] = k

    def reference(v):
        return lax.reduce_window(v, -np.inf, lax.max, window, window, "VALID")

    def ours(v):
        return _window_max.block_max(v, axes, ksize)

    g = rng.standard_normal(reference(x).shape).astype(np.float32)
    np.testing.assert_array_equal(ours(x), reference(x))
    want = jax.vjp(reference, x)[1](g)[0]
    got = jax.jit(lambda v, d: jax.vjp(ours, v)[1](d)[0])
    np.testing.assert_array_equal(got(x, g), want)
    if ksize == (2, 2):  # taken position by position: no reduction over the windows
        step = jax.jit(lambda v, d: jax.vjp(lambda u: ours(jax.nn.relu(u)), v))
        assert " reduce(" not in step.lower(x, g).compile().as_text()
