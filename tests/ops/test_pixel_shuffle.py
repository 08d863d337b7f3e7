"""flow.nn.PixelShuffle / PixelShufflev2 against an index-by-index NumPy reference."""

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp


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
