"""Summary inputs that would exhaust memory or hide the bad value: a huge histogram bin count
is refused before anything is allocated, and the error for a float image holding NaN or Inf
says how many there are and where (its value range used to leave them out)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from reliability_helpers import tb_accumulator

import flowjob.summary as fs

LIMIT = 65_536


@pytest.mark.parametrize("bins", [LIMIT + 1, 10**6, 10**8])
def test_histogram_bin_counts_over_the_limit_fail_before_allocating(tmp_path, bins):
    with fs.SummaryWriter(tmp_path, flush_secs=60) as writer:
        tracemalloc.start()
        try:
            with pytest.raises(ValueError) as err:
                writer.histogram("h", np.arange(10.0), step=0, bins=bins)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert str(err.value) == (
        f"SummaryWriter.histogram: bins={bins:,} is over the limit of "
        f"{LIMIT:,} buckets (each is 24 bytes in every event); use fewer "
        "buckets"
    )
    assert peak < 1 << 20  # a [bins, 3] float64 array was never made
    with pytest.raises(
        ValueError,
        match=rf"SummaryWriter: histogram_bins={bins:,} is over the "
        rf"limit of {LIMIT:,}",
    ):
        fs.SummaryWriter(tmp_path / "other", histogram_bins=bins)
    assert not (tmp_path / "other").exists()


def test_the_largest_bin_count_is_written_and_read_by_tensorboard(tmp_path):
    values = np.linspace(0.0, 1.0, 2 * LIMIT)
    with fs.SummaryWriter(tmp_path, flush_secs=60) as writer:
        writer.histogram("h", values, step=3, bins=LIMIT)
    (event,) = tb_accumulator(tmp_path).Tensors("h")
    buckets = np.frombuffer(event.tensor_proto.tensor_content, "<f8").reshape(-1, 3)
    counts, edges = np.histogram(values, bins=LIMIT)  # NumPy as the reference
    assert event.step == 3 and buckets.shape == (LIMIT, 3)
    np.testing.assert_array_equal(buckets[:, 2], counts)
    np.testing.assert_allclose(buckets[:, 0], edges[:-1])


@pytest.mark.parametrize(
    "bad,kinds",
    [
        ({(1, 2, 0, 0): np.nan}, "1 NaN"),
        (
            {(0, 1, 1, 0): np.inf, (1, 0, 2, 0): -np.inf, (1, 2, 2, 0): np.nan},
            "1 NaN, 1 +Inf, 1 -Inf",
        ),
    ],
)
def test_non_finite_image_values_are_counted_and_placed(tmp_path, bad, kinds):
    images = np.full((2, 3, 3, 1), 0.25, np.float32)
    images[0, 0, 0, 0] = 0.75
    for where, value in bad.items():
        images[where] = value
    first = min(bad)  # C order: the first non-finite value a scan meets
    with fs.SummaryWriter(tmp_path, flush_secs=60) as writer:
        with pytest.raises(ValueError) as err:
            writer.image("img", images, step=0)
    message = str(err.value)
    assert (
        f"got range [0.25, 0.75] and {len(bad)} non-finite of 18 values ({kinds}; the "
        f"first at index {first} of the (N, H, W, C) batch)"
    ) in message, message
