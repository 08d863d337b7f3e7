"""``crop_mirror_normalize``'s host stage, run alone, writes each image into its place of
the batch on the image pool: the same float32 values, bit for bit, as the whole-batch NumPy
formula."""

from __future__ import annotations

import numpy as np
import pytest

from flowjob._src.data._image import CropMirrorNormalize
from flowjob._src.data._modes import Layout
from flowjob._src.data._stages import single

MEAN = np.array([123.68, 116.779, 103.939], np.float32)
STD = np.array([58.393, 57.12, 57.375], np.float32)


@pytest.mark.parametrize("layout", [Layout.NCHW, Layout.NHWC])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_batch_equals_the_numpy_formula(layout, dtype):
    rng = np.random.default_rng(0)
    images = [rng.integers(0, 256, (40, 50, 3), dtype=np.uint8) for _ in range(5)]
    mirror = np.array([1, 0, 1, 0, 0], np.int8)
    stage = CropMirrorNormalize(32, 30, 0.3, 0.7, MEAN, STD, layout, dtype)
    got = single(stage)(images, mirror)
    y, x = int(np.float32(8) * np.float32(0.3)), int(np.float32(20) * np.float32(0.7))
    crops = [im[y : y + 32, x : x + 30] for im in images]
    crops = [c[:, ::-1] if m else c for c, m in zip(crops, mirror)]
    want = (np.stack(crops).astype(np.float32) - MEAN) * (np.float32(1) / STD)
    if layout is Layout.NCHW:
        want = want.transpose(0, 3, 1, 2)
    want = np.ascontiguousarray(want, dtype=dtype)
    assert got.dtype == want.dtype and got.flags.c_contiguous
    np.testing.assert_array_equal(got, want)


def test_crops_of_different_shapes_are_an_error_naming_them():
    images = [np.zeros((10, 10, 3), np.uint8), np.zeros((10, 10, 1), np.uint8)]
    with pytest.raises(Exception, match="crops differ in shape"):
        stage = CropMirrorNormalize(4, 4, 0, 0, MEAN[:1], STD[:1], Layout.NCHW, np.float32)
        single(stage)(images, None)
