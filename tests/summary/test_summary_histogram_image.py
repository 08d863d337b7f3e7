"""Histogram binning (vs TensorBoard's own histogram_pb and NumPy) and image input handling."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image
from tensorboard.plugins.histogram.summary_v2 import histogram_pb
from tensorboard.util import tensor_util

from flowjob._src.summary._histogram import histogram_buckets
from flowjob._src.summary._image import as_image_batch, encode_png, image_value
from tests.timeouts import scaled


def tb_reference(values, bins):
    return tensor_util.make_ndarray(histogram_pb("t", values, buckets=bins).value[0].tensor)


@pytest.mark.parametrize("bins", [1, 7, 30, 64])
@pytest.mark.parametrize("dist", ["normal", "uniform_int", "skewed"])
def test_matches_tensorboards_histogram_pb(bins, dist):
    rng = np.random.default_rng(bins)
    values = {
        "normal": rng.normal(size=2000).astype(np.float32),
        "uniform_int": rng.integers(-50, 50, size=(40, 25)),
        "skewed": rng.exponential(size=1500) ** 3,
    }[dist]
    got, nonfinite = histogram_buckets(values, bins)
    ref = tb_reference(np.asarray(values, np.float64).reshape(-1), bins)
    assert nonfinite.total == 0
    assert got.shape == (bins, 3) and got.dtype == np.float64
    np.testing.assert_allclose(got[:, :2], ref[:, :2], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(got[:, 2], ref[:, 2])


@pytest.mark.parametrize("dist", ["normal", "integers_on_edges", "max_repeated"])
def test_large_inputs_split_over_threads_match_histogram_pb(dist):
    # 1.5M values: binned in pieces on several threads; many integers sit exactly on edges,
    # where only the exact float64 rule (not a reciprocal multiply) agrees with histogram_pb.
    rng = np.random.default_rng(7)
    values = {
        "normal": rng.normal(size=1_500_000).astype(np.float32),
        "integers_on_edges": rng.integers(0, 67, size=1_500_000),  # 0..66: two edges
        "max_repeated": np.concatenate([rng.random(700_000), np.ones(800_000)]),
    }[dist]
    got, _ = histogram_buckets(values, 30)
    ref = tb_reference(values, 30)
    np.testing.assert_array_equal(got[:, 2], ref[:, 2])
    np.testing.assert_allclose(got[:, :2], ref[:, :2], rtol=1e-12, atol=1e-12)


def test_float32_inputs_are_binned_in_float64():
    # -0.5 - (-2**24) is 16777215.5 in float64 (first bucket) but rounds to 2**24 in float32.
    values = np.array([-(2.0**24), -0.5, 2.0**24], np.float32)
    got, _ = histogram_buckets(values, 2)
    np.testing.assert_array_equal(got[:, 2], [2, 1])
    np.testing.assert_array_equal(got, tb_reference(values, 2))


def test_counts_match_numpy_histogram_and_edges_span_min_max():
    values = np.random.default_rng(0).normal(3.0, 2.0, size=100_000)
    got, _ = histogram_buckets(values, 30)
    counts, edges = np.histogram(values, bins=30)
    np.testing.assert_allclose(got[:, 0], edges[:-1])
    np.testing.assert_allclose(got[:, 1], edges[1:])
    assert got[0, 0] == values.min() and got[-1, 1] == values.max()
    assert abs(got[:, 2] - counts).sum() <= 2  # only edge rounding may move a value
    assert got[:, 2].sum() == values.size


def test_nonfinite_values_are_excluded_and_counted():
    finite = np.linspace(-1, 1, 101)
    values = np.concatenate([finite, [np.nan] * 3, [np.inf] * 2, [-np.inf]]).astype(np.float32)
    got, nonfinite = histogram_buckets(values, 10)
    assert (nonfinite.nan, nonfinite.posinf, nonfinite.neginf) == (3, 2, 1)
    assert np.isfinite(got).all()
    ref, _ = histogram_buckets(finite.astype(np.float32), 10)
    np.testing.assert_array_equal(got, ref)


def test_all_nonfinite_and_empty_inputs_give_no_buckets():
    got, nonfinite = histogram_buckets(np.array([np.nan, np.inf]), 30)
    assert got.shape == (0, 3) and nonfinite.total == 2
    got, nonfinite = histogram_buckets(np.zeros((0, 4)), 30)
    assert got.shape == (0, 3) and nonfinite.total == 0


def test_constant_input_follows_tensorboard_convention():
    got, _ = histogram_buckets(np.full(17, 2.5), 5)
    np.testing.assert_array_equal(got, tb_reference(np.full(17, 2.5), 5))


@pytest.mark.parametrize(
    "bad, err, match",
    [
        (np.array(["a", "b"]), TypeError, "numeric"),
        (np.array([1 + 2j]), TypeError, "complex"),
        ([object()], TypeError, "numeric"),
    ],
)
def test_bad_histogram_input(bad, err, match):
    with pytest.raises(err, match=match):
        histogram_buckets(bad)


def test_bad_bins():
    with pytest.raises(ValueError, match="bins"):
        histogram_buckets(np.ones(3), 0)


# --- images ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "shape, expect",
    [
        ((5, 6), (1, 5, 6, 1)),
        ((5, 6, 1), (1, 5, 6, 1)),
        ((5, 6, 3), (1, 5, 6, 3)),
        ((5, 6, 4), (1, 5, 6, 4)),
        ((2, 5, 6, 3), (2, 5, 6, 3)),
    ],
)
def test_image_shapes_are_normalised(shape, expect):
    a = np.random.default_rng(0).integers(0, 256, shape, dtype=np.uint8)
    batch = as_image_batch(a)
    assert batch.shape == expect and batch.dtype == np.uint8
    np.testing.assert_array_equal(batch.reshape(a.shape), a)
    assert not np.shares_memory(batch, a)  # caller may reuse its buffer


def test_float_images_in_unit_range_are_scaled():
    a = np.array([[0.0, 0.5, 1.0]], np.float32)
    np.testing.assert_array_equal(as_image_batch(a).reshape(-1), [0, 128, 255])


@pytest.mark.parametrize(
    "a, err, match",
    [
        (np.zeros((4, 5, 6), np.uint8), ValueError, "C in"),
        (np.zeros((1, 4, 5, 2), np.uint8), ValueError, "channels must be 1"),
        (np.zeros((1, 2, 4, 5, 3), np.uint8), ValueError, "shape"),
        (np.zeros((0, 4, 5, 3), np.uint8), ValueError, "empty"),
        (np.full((4, 4), 2.0), ValueError, r"\[0, 1\]"),
        (np.zeros((4, 4), np.int32), TypeError, "uint8"),
    ],
)
def test_bad_images_give_clear_errors(a, err, match):
    with pytest.raises(err, match=match):
        as_image_batch(a, "SummaryWriter.image")


@pytest.mark.parametrize("c, mode", [(1, "L"), (3, "RGB"), (4, "RGBA")])
def test_png_decodes_to_the_input(c, mode):
    img = np.random.default_rng(c).integers(0, 256, (9, 13, c), dtype=np.uint8)
    png = encode_png(img)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    decoded = Image.open(io.BytesIO(png))
    assert decoded.mode == mode and decoded.size == (13, 9)
    np.testing.assert_array_equal(np.asarray(decoded).reshape(img.shape), img)


def test_image_value_is_one_tag_with_n_samples():
    batch = as_image_batch(np.random.default_rng(0).integers(0, 256, (3, 4, 5, 3), np.uint8))
    value = image_value("pics", batch, with_metadata=True)
    strings = list(value.tensor.string_val)
    assert strings[:2] == [b"5", b"4"] and len(strings) == 5
    assert value.metadata.plugin_data.plugin_name == "images"
    for i in range(3):
        np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(strings[2 + i]))), batch[i])


@pytest.mark.parametrize(
    "values",
    [
        [-1e308, 0.0, 1e308],
        [0.0, 5e-324, 5e-324],
        [-1.7976931348623157e308, 1.7976931348623157e308],
    ],
    ids=["range-overflows", "subnormal-range", "full-range"],
)
def test_extreme_but_finite_values(values):
    values = np.array(values)
    got, nonfinite = histogram_buckets(values, 4)
    assert nonfinite.total == 0 and np.isfinite(got).all()
    assert got[0, 0] == values.min() and got[-1, 1] == values.max()
    assert (np.diff(got[:, 0]) >= 0).all() and (got[:, 1] >= got[:, 0]).all()
    # each value lies in the bucket that counts it
    for v in values:
        inside = (got[:, 0] <= v) & (v <= got[:, 1])
        assert inside.any()
    assert got[:, 2].sum() == values.size
    assert got[0, 2] >= 1 and got[-1, 2] >= 1  # min and max land in the end buckets


def test_subnormal_bucket_width_bins_by_position_in_the_range():
    # width = span / 30 is subnormal and rounds to 1 ulp: floor((x - min) / width) would give
    # index 40 for the maximum (histogram_pb clamps it and puts the middle value at 20).
    values = np.array([0.0, 40 * 5e-324, 20 * 5e-324])
    got, _ = histogram_buckets(values, 30)
    expected = np.zeros(30)
    expected[[0, 15, 29]] = 1
    np.testing.assert_array_equal(got[:, 2], expected)
    assert got[0, 0] == 0.0 and got[-1, 1] == values.max()


def test_large_histogram_at_interpreter_exit_is_counted_without_the_thread_pool():
    # At exit concurrent.futures is shut down before atexit handlers (and summary ops drained
    # at exit) run; binning must fall back to the calling thread.
    import subprocess
    import sys

    code = (
        "import atexit, numpy as np\n"
        "from flowjob._src.summary._histogram import histogram_buckets\n"
        "atexit.register(lambda: print('counts', histogram_buckets("
        "np.arange(1 << 20, dtype=np.float32), 4)[0][:, 2].tolist()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=scaled(120)
    )
    assert out.returncode == 0, out.stderr
    assert "counts [262144.0, 262144.0, 262144.0, 262144.0]" in out.stdout, out.stderr
