"""CPU convolution lowerings chosen per shape (issue 17): grouped convolutions as one
convolution per group, unpadded 1x1 convolutions as dots. Each must equal XLA's own
convolution, forward and gradients (jax.grad), checked against a float64 reference."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

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
    (3, 8, 8, 7, 3, (1, 1), ((1, 1), (1, 1)), (1, 1), 4, "NCHW"),  # ResNeXt-like 3x3
    (2, 64, 64, 5, 3, (2, 2), ((1, 1), (1, 1)), (1, 1), 32, "NCHW"),  # 32 groups, strided
    (12, 6, 9, 9, 3, (2, 1), ((1, 0), (0, 1)), (1, 2), 3, "NCHW"),  # batch > chunk, dilation
    (2, 6, 4, 6, 3, (1, 1), ((1, 1), (1, 1)), (1, 1), 2, "NHWC"),
    (4, 16, 24, 6, 1, (1, 1), ((0, 0), (0, 0)), (1, 1), 1, "NCHW"),  # pointwise as a dot
    (20, 16, 8, 7, 1, (2, 2), ((0, 0), (0, 0)), (1, 1), 1, "NCHW"),  # strided, odd size
    (3, 5, 7, 6, 1, (1, 2), ((0, 0), (0, 0)), (1, 1), 1, "NHWC"),
    (3, 5, 7, 6, 1, (1, 1), ((1, 1), (0, 0)), (1, 1), 1, "NCHW"),  # padded 1x1: a convolution
]


def _path(case) -> str:
    k, pads, groups = case[4], case[6], case[8]
    if groups > 1:
        return "split"
    return "dot" if k == 1 and all(p == (0, 0) for p in pads) else "conv"


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{_path(c)}-g{c[8]}-k{c[4]}-{c[9]}")
def test_lowering_matches_xla_convolution_and_its_gradients(case):
    batch, cin, cout, size, k, strides, pads, dil, groups, fmt = case
    rng = np.random.default_rng(batch * 100 + cin)
    x_shape = (batch, cin, size, size) if fmt == "NCHW" else (batch, size, size, cin)
    w_shape = (cout, cin // groups, k, k) if fmt == "NCHW" else (cout, k, k, cin // groups)
    x = jnp.asarray(rng.normal(size=x_shape).astype(np.float32))
    w = jnp.asarray(rng.normal(size=w_shape).astype(np.float32))
    attrs = dict(strides=strides, pads=pads, dilations=dil, groups=groups, data_format=fmt)
    ours = jax.jit(lambda x, w: _conv.lower_conv2d(x, w, **attrs))
    args = (strides, pads, dil, groups, fmt)
    y = ours(x, w)
    x64, w64 = np.asarray(x, np.float64), np.asarray(w, np.float64)
    with jax.enable_x64(True):  # a float64 reference, independent of float32 rounding
        y64 = np.asarray(reference(jnp.asarray(x64), jnp.asarray(w64), *args))
        g = rng.normal(size=y64.shape)
        dx64, dw64 = (
            np.asarray(a)
            for a in jax.grad(lambda x, w: jnp.sum(reference(x, w, *args) * g), argnums=(0, 1))(
                jnp.asarray(x64), jnp.asarray(w64)
            )
        )
    assert y64.dtype == np.float64
    assert y.shape == y64.shape
    np.testing.assert_allclose(np.asarray(y), y64, rtol=1e-5, atol=1e-5 * np.abs(y64).max())
    # gradients of a scalar loss, as a train step takes them, against float64 jax.grad
    g32 = jnp.asarray(g.astype(np.float32))
    dx, dw = jax.jit(jax.grad(lambda x, w: jnp.sum(ours(x, w) * g32), argnums=(0, 1)))(x, w)
    for got, want in ((dx, dx64), (dw, dw64)):
        np.testing.assert_allclose(
            np.asarray(got), want, rtol=1e-4, atol=1e-5 * float(np.abs(want).max())
        )


def test_each_path_is_the_one_taken():
    """The cases above exercise the lowering they are named after (not the plain conv)."""
    x = jnp.zeros((2, 8, 5, 5))
    common = dict(dilations=(1, 1), data_format="NCHW")
    grouped = jax.make_jaxpr(
        lambda x, w: _conv.lower_conv2d(
            x, w, strides=(1, 1), pads=((1, 1), (1, 1)), groups=4, **common
        )
    )(x, jnp.zeros((8, 2, 3, 3)))
    text = str(grouped)
    assert text.count("conv_general_dilated") == 4 and "feature_group_count=4" not in text
    pointwise = jax.make_jaxpr(
        lambda x, w: _conv.lower_conv2d(
            x, w, strides=(1, 1), pads=((0, 0), (0, 0)), groups=1, **common
        )
    )(x, jnp.zeros((3, 8, 1, 1)))
    assert "dot_general" in str(pointwise) and "conv_general_dilated" not in str(pointwise)
