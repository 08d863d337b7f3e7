"""``flowjob/_src/ops/_resample.py``: pixel shuffle and upsampling."""

from __future__ import annotations

import numpy as np
import pytest
from ops_helpers import (
    numeric_grad,
    value_and_grads,
)

import flowjob as flow
import flowjob.typing as tp


def _np_bilinear(x, out_h, out_w, align):
    n, c, h, w = x.shape

    def coords(n_in, n_out):
        d = np.arange(n_out, dtype=np.float64)
        if align:
            return d * ((n_in - 1) / (n_out - 1))
        return np.maximum((d + 0.5) * n_in / n_out - 0.5, 0)

    out = np.zeros((n, c, out_h, out_w))
    for i, sy in enumerate(coords(h, out_h)):
        for j, sx in enumerate(coords(w, out_w)):
            y0, x0 = min(int(sy), h - 1), min(int(sx), w - 1)
            y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
            fy, fx = sy - int(sy), sx - int(sx)
            out[:, :, i, j] = (1 - fy) * (
                (1 - fx) * x[:, :, y0, x0] + fx * x[:, :, y0, x1]
            ) + fy * ((1 - fx) * x[:, :, y1, x0] + fx * x[:, :, y1, x1])
    return out


@pytest.mark.parametrize(
    "interpolation,align,size",
    [("nearest", False, 2), ("bilinear", False, (2, 3)), ("bilinear", True, 2)],
)
def test_upsample_2d_matches_pytorch_sampling(interpolation, align, size):
    x = np.random.default_rng(4).normal(size=(1, 2, 3, 4))
    value, (g,), c = value_and_grads(
        lambda b: flow.layers.upsample_2d(
            b, size=size, align_corners=align, interpolation=interpolation
        ),
        x,
    )
    sh, sw = (size, size) if isinstance(size, int) else size
    if interpolation == "nearest":
        want = x.repeat(sh, axis=2).repeat(sw, axis=3)
    else:
        want = _np_bilinear(x, 3 * sh, 4 * sw, align)
    np.testing.assert_allclose(value, want, rtol=1e-12, atol=1e-12)
    ref = (
        (lambda a: a.repeat(sh, 2).repeat(sw, 3))
        if interpolation == "nearest"
        else (lambda a: _np_bilinear(a, 3 * sh, 4 * sw, align))
    )
    np.testing.assert_allclose(g, numeric_grad(ref, [x], c)[0], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("rh, rw", [(2, 3), (2, 2)])
def test_pixel_shuffle_moves_each_channel_to_its_sub_pixel(rh, rw):
    x = np.random.default_rng(0).normal(size=(2, 2 * rh * rw, 3, 4)).astype(np.float32)

    @flow.global_function()
    def Job(a: tp.Numpy.Placeholder(x.shape)) -> tp.Numpy:
        if rh == rw:
            return flow.nn.PixelShuffle(a, rh)
        return flow.nn.PixelShufflev2(a, rh, rw)

    ref = np.zeros((2, 2, 3 * rh, 4 * rw), np.float32)
    for c in range(2):
        for i in range(rh):
            for j in range(rw):
                ref[:, c, i::rh, j::rw] = x[:, c * rh * rw + i * rw + j]
    np.testing.assert_array_equal(Job(x), ref)


def test_channels_must_divide():
    @flow.global_function()
    def Job(a: tp.Numpy.Placeholder((1, 5, 2, 2))) -> tp.Numpy:
        return flow.nn.PixelShuffle(a, 2)

    with pytest.raises(flow.OpError, match="PixelShufflev2: needs an NCHW input"):
        Job(np.zeros((1, 5, 2, 2), np.float32))
