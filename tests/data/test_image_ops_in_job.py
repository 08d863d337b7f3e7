"""Image ops on batches made in the job body run inside the job's program (as every OneFlow op
ran in one graph), with the results of their host pipeline versions.

A 2021 program: ``flow.image.CropMirrorNormalize(flow.cast(flow.transpose(x, perm), uint8))``
on an NCHW float input; the host path gets the same batch as a uint8 job argument."""

from __future__ import annotations

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.data import _image
from flowjob._src.data._modes import Layout
from flowjob._src.data._stages import single
from flowjob._src.graph import OpKind

pytestmark = pytest.mark.usefixtures("fresh_session")

RNG = np.random.default_rng(3)
NCHW = RNG.integers(0, 256, (4, 3, 10, 12)).astype(np.float32)
NHWC = NCHW.transpose(0, 2, 3, 1).astype(np.uint8)
MIRROR = np.array([1, 0, 1, 1], np.int8)
CASES = [
    dict(color_space="RGB", output_layout="NCHW", crop_h=6, crop_w=7, crop_pos_y=0.3,
         crop_pos_x=0.9, mean=[123.68, 116.78, 103.94], std=[58.4, 57.1, 57.4]),
    dict(color_space="BGR", output_layout="NHWC", mean=[5.0], std=[2.0]),
    dict(color_space="RGB", output_layout="NHWC", crop_h=10, crop_w=3, crop_pos_x=0.51,
         output_dtype=flow.float16),
]  # fmt: skip


def _reference(kwargs, mirror):
    """The host implementation called directly on the NHWC batch."""
    c = 3
    mean = np.resize(np.asarray(kwargs.get("mean", [0.0]), np.float32), c)
    std = np.resize(np.asarray(kwargs.get("std", [1.0]), np.float32), c)
    dtype = kwargs.get("output_dtype", flow.float32).np_dtype
    stage = _image.CropMirrorNormalize(
        kwargs.get("crop_h", 0), kwargs.get("crop_w", 0),
        kwargs.get("crop_pos_y", 0.5), kwargs.get("crop_pos_x", 0.5), mean, std,
        Layout(kwargs["output_layout"]), dtype,
    )  # fmt: skip
    return single(stage)(NHWC, mirror)


def _jobs(kwargs):
    @flow.global_function(type="predict")
    def in_body(
        x: tp.Numpy.Placeholder(NCHW.shape), m: tp.Numpy.Placeholder((4,), dtype=flow.int8)
    ) -> tp.Numpy:
        images = flow.cast(flow.transpose(x, perm=[0, 2, 3, 1]), dtype=flow.uint8)
        return flow.image.CropMirrorNormalize(images, mirror_blob=m, **kwargs)

    @flow.global_function(type="predict")
    def on_host(
        images: tp.Numpy.Placeholder(NHWC.shape, dtype=flow.uint8),
        m: tp.Numpy.Placeholder((4,), dtype=flow.int8),
    ) -> tp.Numpy:
        return flow.image.CropMirrorNormalize(images, mirror_blob=m, **kwargs)

    return in_body, on_host


@pytest.mark.parametrize("kwargs", CASES, ids=["nchw-crop", "nhwc-full", "f16"])
def test_crop_mirror_normalize_of_a_body_batch_matches_the_host_version(kwargs):
    in_body, on_host = _jobs(kwargs)
    device = in_body(NCHW, MIRROR)
    host = on_host(NHWC, MIRROR)
    expected = _reference(kwargs, MIRROR)
    assert device.dtype == host.dtype == expected.dtype and device.shape == expected.shape
    np.testing.assert_allclose(host, expected, rtol=0, atol=0)
    np.testing.assert_allclose(device, expected, rtol=1e-6, atol=1e-5)
    traced = in_body.session.compiled_job(in_body).traced.graph
    kinds = {op.op_type: op.kind for op in traced.ops}
    assert kinds["crop_mirror_normalize_from_uint8"] is OpKind.DEVICE  # in the program


def test_mirror_flags_from_the_body_and_coin_flip_from_the_pipeline():
    """The flags may come from either side; CoinFlip (a pipeline source) feeds the program."""

    @flow.global_function(type="predict")
    def job(x: tp.Numpy.Placeholder(NCHW.shape)) -> tp.Numpy:
        images = flow.cast(flow.transpose(x, perm=[0, 2, 3, 1]), dtype=flow.uint8)
        flags = flow.random.CoinFlip(batch_size=4, seed=1, probability=1.0)
        flipped = flow.image.CropMirrorNormalize(images, mirror_blob=flags, output_layout="NHWC")
        body_flags = flow.cast(flow.math.greater(flow.ones((4,)), 0.5), dtype=flow.int8)
        again = flow.image.CropMirrorNormalize(images, mirror_blob=body_flags, output_layout="NHWC")
        return flipped - again

    np.testing.assert_array_equal(job(NCHW), np.zeros((4, 10, 12, 3), np.float32))


def test_eager_mode_runs_the_same_op():
    flow.enable_eager_execution(True)
    kwargs = CASES[0]
    in_body, _ = _jobs(kwargs)
    np.testing.assert_allclose(in_body(NCHW, MIRROR), _reference(kwargs, MIRROR), atol=1e-5)
