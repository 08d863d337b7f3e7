"""Padding, upsampling and pixel-shuffle ops with the cases OneFlow's suite checked (the four
pad2d files, test_upsample, test_pixel_shuffle, test_pixel_shufflev2): values and gradients
against jax.numpy references."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest
from parity_helpers import Case, run_cases, uniform

import flowjob as flow

PAD_SAMPLES = [
    ((2, 1, 2, 2), [1, 1, 1, 1]),
    ((2, 3, 4, 5), [3, 2, 1, 2]),
    ((4, 2, 3, 3), [2, 2, 2, 2]),
]


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_pad2d_modes(dtype):
    cases = []
    for i, (shape, (left, right, top, bottom)) in enumerate(PAD_SAMPLES):
        x = (uniform(shape, seed=i) * 10).astype(dtype)
        widths = ((0, 0), (0, 0), (top, bottom), (left, right))
        padding = [left, right, top, bottom]
        grad = dtype == np.float32
        for name, fn, mode in (
            ("reflection_pad2d", flow.reflection_pad2d, "reflect"),
            ("replication_pad2d", flow.replication_pad2d, "edge"),
            ("zero_pad2d", flow.zero_pad2d, "constant"),
        ):
            if mode == "reflect" and min(shape[2:]) <= max(padding):
                continue  # reflection needs pads smaller than the side
            cases.append(
                Case(
                    f"{name} {shape} {padding}",
                    lambda a, f=fn, p=padding: f(a, p),
                    lambda a, w=widths, m=mode: jnp.pad(a, w, mode=m),
                    [x],
                    grad=grad,
                )
            )
        for value in (1.5, -2.0, 0.0):
            cases.append(
                Case(
                    f"constant_pad2d {shape} {padding} {value}",
                    lambda a, p=padding, v=value: flow.constant_pad2d(a, p, v),
                    lambda a, w=widths, v=value: jnp.pad(
                        a, w, constant_values=jnp.asarray(v).astype(a.dtype)
                    ),
                    [x],
                    grad=grad,
                )
            )
    run_cases(cases)


def _source_index(out_size, in_size, scale, align_corners):
    i = np.arange(out_size, dtype=np.float64)
    if align_corners:
        return i * ((in_size - 1) / (out_size - 1)) if out_size > 1 else i * 0
    return np.maximum((i + 0.5) / scale - 0.5, 0.0)


def _bilinear_axis(x, axis, scale, align_corners):
    # sampling positions in NumPy float64, outside the traced reference: they are constants
    n = x.shape[axis]
    src = _source_index(n * scale, n, scale, align_corners)
    lo = np.clip(np.floor(src).astype(np.int64), 0, n - 1)
    hi = np.minimum(lo + 1, n - 1)
    shape = [1] * x.ndim
    shape[axis] = -1
    w = jnp.asarray((src - lo).reshape(shape), x.dtype)
    return jnp.take(x, lo, axis) * (1 - w) + jnp.take(x, hi, axis) * w


def upsample_ref(x, size, interpolation, align_corners, channels_last):
    h_axis, w_axis = (1, 2) if channels_last else (2, 3)
    if interpolation == "nearest":
        x = jnp.repeat(x, size[0], axis=h_axis)
        return jnp.repeat(x, size[1], axis=w_axis)
    x = _bilinear_axis(x, h_axis, size[0], align_corners)
    return _bilinear_axis(x, w_axis, size[1], align_corners)


def test_upsample_2d_modes_formats_and_sizes():
    cases = []
    for fmt in ("NCHW", "NHWC"):
        x = uniform((2, 5, 6, 7), dtype=np.float64, seed=20)
        for size in ((2, 2), 3, (1, 2)):
            pair = (size, size) if isinstance(size, int) else size
            for interpolation, align in (
                ("nearest", False),
                ("bilinear", False),
                ("bilinear", True),
            ):
                cases.append(
                    Case(
                        f"upsample {fmt} {size} {interpolation} align={align}",
                        lambda a, s=size, i=interpolation, al=align, f=fmt: flow.layers.upsample_2d(
                            a, size=s, align_corners=al, data_format=f, interpolation=i
                        ),
                        lambda a, s=pair, i=interpolation, al=align, f=fmt: upsample_ref(
                            a, s, i, al, f == "NHWC"
                        ),
                        [x],
                        rtol=1e-9,
                        atol=1e-9,
                    )
                )
    run_cases(cases)


def test_pixel_shuffle_and_v2():
    def ref(a, rh, rw):
        n, c, h, w = a.shape
        out = a.reshape(n, c // (rh * rw), rh, rw, h, w).transpose(0, 1, 4, 2, 5, 3)
        return out.reshape(n, c // (rh * rw), h * rh, w * rw)

    x = uniform((2, 36, 3, 4), seed=21)
    run_cases(
        [
            Case(
                "PixelShuffle 2", lambda a: flow.nn.PixelShuffle(a, 2), lambda a: ref(a, 2, 2), [x]
            ),
            Case(
                "PixelShuffle 3", lambda a: flow.nn.PixelShuffle(a, 3), lambda a: ref(a, 3, 3), [x]
            ),
            Case(
                "PixelShufflev2 2x3",
                lambda a: flow.nn.PixelShufflev2(a, 2, 3),
                lambda a: ref(a, 2, 3),
                [x],
            ),
            Case(
                "PixelShufflev2 4x1",
                lambda a: flow.nn.PixelShufflev2(a, 4, 1),
                lambda a: ref(a, 4, 1),
                [x],
            ),
        ]
    )
