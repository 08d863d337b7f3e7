"""``flowjob/_src/ops/_quantization.py``: observers and fake quantization against NumPy versions of
OneFlow v0.4's kernel formulas; the fake quantization gradient is the identity."""

from __future__ import annotations

from typing import Tuple

import numpy as np
import pytest
from ops_helpers import normal, on_gpu, sgd, value_and_grads, variables

import flowjob as flow
import flowjob.typing as tp


def np_observer(x, bit, scheme, formula, per_layer=True):
    rows = x.reshape(1, -1) if per_layer else x.reshape(x.shape[0], -1)
    high, low = rows.max(1), rows.min(1)
    peak = np.maximum(np.abs(high), np.abs(low))
    if formula == "cambricon":
        return np.floor(np.log2(peak)) - (bit - 2), np.zeros_like(peak)
    if scheme == "symmetric":
        return peak / (2 ** (bit - 1) - 1), np.zeros_like(peak)
    scale = (high - low) / (2**bit - 1)
    return scale, -np.round(low / scale)


def np_fake_quant(x, scale, zero, bit, scheme, formula):
    shape = (-1,) + (1,) * (x.ndim - 1) if scale.size > 1 else (1,) * x.ndim
    scale, zero = scale.reshape(shape), zero.reshape(shape)
    if formula == "cambricon":
        scale = 2.0 ** np.trunc(scale)
    if scheme == "affine" and formula == "google":
        zero = np.round(zero)
        return (np.clip(np.rint(x / scale + zero), 0, 2**bit - 1) - zero) * scale
    top = 2 ** (bit - 1) - 1
    return np.clip(np.rint(x / scale), -top - 1, top) * scale


@pytest.mark.parametrize(
    "bit, scheme, formula, per_layer",
    [
        (8, "symmetric", "google", True),
        (8, "affine", "google", True),
        (4, "symmetric", "google", False),
        (5, "affine", "google", False),
        (8, "symmetric", "cambricon", True),
    ],
)
def test_observer_and_fake_quantization_match_numpy(bit, scheme, formula, per_layer):
    x = normal(3, 4, 5, seed=11).astype(np.float64) + 0.3

    @flow.global_function()
    def job(
        a: tp.Numpy.Placeholder((3, 4, 5), dtype=flow.float64),
    ) -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        scale, zero = flow.quantization.min_max_observer(
            a, bit, scheme, formula, per_layer_quantization=per_layer
        )
        return (
            scale,
            zero,
            flow.quantization.fake_quantization(a, scale, zero, bit, scheme, formula),
        )

    scale, zero, out = job(x)
    want_scale, want_zero = np_observer(x, bit, scheme, formula, per_layer)
    np.testing.assert_allclose(scale, want_scale, rtol=1e-12)
    np.testing.assert_array_equal(zero, want_zero)
    np.testing.assert_allclose(
        out, np_fake_quant(x, want_scale, want_zero, bit, scheme, formula), rtol=1e-12, atol=1e-15
    )
    assert len(np.unique(out)) <= 2**bit * (1 if per_layer else 3)


def test_fake_quantization_gradient_passes_straight_through():
    x = normal(2, 6, seed=1).astype(np.float64)

    def quantize(a):
        scale, zero = flow.quantization.min_max_observer(a, 4, "affine")
        return flow.quantization.fake_quantization(a, scale, zero, 4, "affine")

    value, (grad,), cot = value_and_grads(quantize, x)
    scale, zero = np_observer(x, 4, "affine", "google")
    np.testing.assert_allclose(
        value, np_fake_quant(x, scale, zero, 4, "affine", "google"), rtol=1e-12
    )
    np.testing.assert_array_equal(grad, cot)


@pytest.mark.parametrize("scheme", ["symmetric", "affine"])
def test_moving_average_observer_tracks_the_range_in_train_jobs(scheme):
    @flow.global_function(type="train")
    def train(a: tp.Numpy.Placeholder((8,), dtype=flow.float64)) -> Tuple[tp.Numpy, tp.Numpy]:
        w = flow.get_variable(
            "w", shape=(1,), dtype=flow.float64, initializer=flow.zeros_initializer()
        )
        sgd(0.0).minimize(w * 1.0)
        return flow.quantization.moving_average_min_max_observer(
            a, 8, scheme, momentum=0.9, name="obs"
        )

    @flow.global_function()
    def predict(a: tp.Numpy.Placeholder((8,), dtype=flow.float64)) -> Tuple[tp.Numpy, tp.Numpy]:
        return flow.quantization.moving_average_min_max_observer(
            a, 8, scheme, momentum=0.9, name="obs"
        )

    rng = np.random.default_rng(0)
    batches = [rng.normal(size=8) * (i + 1) for i in range(3)]
    moving_max = moving_min = 0.0
    for batch in batches:
        high, low = batch.max(), batch.min()
        if scheme == "symmetric":
            high = low = max(abs(high), abs(low))
        moving_max = high if moving_max == 0 else moving_max * 0.9 + high * 0.1
        moving_min = low if moving_min == 0 else moving_min * 0.9 + low * 0.1
        scale, zero = train(batch)
        if scheme == "symmetric":
            want = (moving_max / 127, 0.0)
        else:
            want = (
                (moving_max - moving_min) / 255,
                -np.round(moving_min / ((moving_max - moving_min) / 255)),
            )
        np.testing.assert_allclose([scale[0], zero[0]], want, rtol=1e-12)
    v = variables()
    np.testing.assert_allclose(v["obs-moving_max"], [moving_max], rtol=1e-12)
    # predict jobs read the averages and leave them alone
    scale, _ = predict(batches[0] * 100)
    np.testing.assert_allclose(scale[0], want[0], rtol=1e-12)
    np.testing.assert_allclose(variables()["obs-moving_max"], [moving_max], rtol=1e-12)


def test_quantization_rejects_bad_modes():
    @flow.global_function()
    def job(a: tp.Numpy.Placeholder((4,))) -> tp.Numpy:
        return flow.quantization.min_max_observer(a, 8, "asymmetric")[0]

    with pytest.raises(flow.OpError, match="'symmetric' or 'affine'"):
        job(np.zeros(4, np.float32))


@pytest.mark.parametrize("scheme", ["symmetric", "affine"])
@pytest.mark.parametrize("per_layer", [True, False])
def test_float32_scales_and_steps_are_exact(scheme, per_layer):
    """Float32 scales equal NumPy's IEEE float32 ones bit for bit, and every element lands on
    the step nearest its exact quotient (NumPy in float64), on 4 x 72,000 elements (on the
    CPU; a GPU's elements are within one step)."""
    shape = (9, 40, 20, 10)

    @flow.global_function()
    def job(a: tp.Numpy.Placeholder(shape)) -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        scale, zero = flow.quantization.min_max_observer(
            a, 8, scheme, per_layer_quantization=per_layer
        )
        return scale, zero, flow.quantization.fake_quantization(a, scale, zero, 8, scheme)

    for seed in range(4):
        x = (np.random.default_rng(seed).random(shape) - 0.5).astype(np.float32)
        rows = x.reshape(1, -1) if per_layer else x.reshape(shape[0], -1)
        high, low = rows.max(1), rows.min(1)
        if scheme == "symmetric":
            want_scale = np.maximum(np.abs(high), np.abs(low)) / np.float32(127)
            want_zero = np.zeros_like(want_scale)
        else:
            want_scale = (high - low) / np.float32(255)
            want_zero = -np.round(low / want_scale)
        scale, zero, out = job(x)
        np.testing.assert_array_equal(scale, want_scale)
        np.testing.assert_array_equal(zero, want_zero)
        want = np_fake_quant(
            x.astype(np.float64), want_scale.astype(np.float64), want_zero, 8, scheme, "google"
        )
        if on_gpu():
            # A GPU contracts the step arithmetic into fused multiply-adds: an element
            # whose quotient lies within an ulp of a rounding boundary may land one step over.
            step = np.broadcast_to(want_scale.reshape(-1, *[1] * (len(shape) - 1)), shape)
            np.testing.assert_array_less(np.abs(out - want.astype(np.float32)), 1.01 * step)
        else:
            np.testing.assert_array_equal(out, want.astype(np.float32))
