"""Fast uniform-bin histograms in TensorBoard's new-style ``[k, 3]`` tensor format.

Why ``[k, 3]`` (rows ``left, right, count``) rather than the legacy ``HistogramProto``:
TensorBoard's Python loader and its Rust data server both serve it as written, so edges are
exact and identical in both (the legacy proto has its outer edges rewritten from ``min``/``max``
and its empty end buckets dropped differently by the two loaders; visualization.md 1.5), it is
what ``tensorboard``'s own ``histogram_pb`` writes, and 30 uniform buckets are ~13x smaller and
~4x cheaper than TF's ~1,500 exponential buckets.

Binning: bucket ``i`` of ``k`` holds the values with ``floor((x - min) * k / (max - min)) == i``
(the maximum goes to the last bucket), the same rule as ``histogram_pb``, computed with
``np.bincount`` in float64 (no sort, no O(n*k) one-hot). Edges are ``linspace(min, max, k+1)``.
If all values are equal, every bucket has zero width at that value and the last holds the count
(as ``histogram_pb`` does). NaN and +/-Inf are excluded from the buckets and counted separately.
"""

from __future__ import annotations

import math
import sys
from typing import NamedTuple

import numpy as np
from tensorboard.compat.proto import summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2
from tensorboard.plugins.histogram import plugin_data_pb2 as histogram_data_pb2

__all__ = [
    "DEFAULT_BINS",
    "MAX_BINS",
    "NonFinite",
    "check_bins",
    "histogram_buckets",
    "histogram_value",
    "histogram_metadata",
]

DEFAULT_BINS = 30
# Every bucket is three float64s in every event: 65,536 buckets are 1.5 MiB per value. Far
# more would allocate gigabytes, then overflow protobuf's 2 GiB message limit.
MAX_BINS = 1 << 16


def check_bins(bins: object, what: str, argument: str = "bins") -> int:
    """``bins`` as an int in ``1..MAX_BINS``; a ``ValueError`` naming ``argument`` otherwise
    (checked before anything is allocated)."""
    if not isinstance(bins, (int, np.integer)) or isinstance(bins, bool) or bins < 1:
        raise ValueError(f"{what}: {argument} must be an int >= 1, got {bins!r}")
    if bins > MAX_BINS:
        raise ValueError(
            f"{what}: {argument}={int(bins):,} is over the limit of {MAX_BINS:,} "
            f"buckets (each is 24 bytes in every event); use fewer buckets"
        )
    return int(bins)


class NonFinite(NamedTuple):
    """Counts of non-finite values that were left out."""

    nan: int = 0
    posinf: int = 0
    neginf: int = 0

    @property
    def total(self) -> int:
        return self.nan + self.posinf + self.neginf


_NO_NONFINITE = NonFinite()


def _as_real_array(values, what: str) -> np.ndarray:
    a = np.asarray(values)
    if a.dtype == object or not (np.issubdtype(a.dtype, np.number) or a.dtype == np.bool_):
        raise TypeError(f"{what}: expected a real numeric array, got dtype {a.dtype}")
    if np.issubdtype(a.dtype, np.complexfloating):
        raise TypeError(f"{what}: complex values are not supported (dtype {a.dtype})")
    return a.reshape(-1)


def histogram_buckets(
    values, bins: int = DEFAULT_BINS, what: str = "histogram"
) -> tuple[np.ndarray, NonFinite]:
    """Returns ``(buckets, nonfinite)``: a float64 ``[k, 3]`` array and the excluded counts.

    ``values`` may have any shape and any real dtype. An input with no finite values gives a
    ``[0, 3]`` array.
    """
    k = check_bins(bins, what)
    a = _as_real_array(values, what)
    nonfinite = _NO_NONFINITE
    if a.size == 0:
        return np.zeros((0, 3), np.float64), nonfinite
    if np.issubdtype(a.dtype, np.floating):
        mn, mx = a.min(), a.max()  # NaN/Inf propagate here, so the mask is only built if needed
        if not (np.isfinite(mn) and np.isfinite(mx)):
            nan = int(np.count_nonzero(np.isnan(a)))
            posinf = int(np.count_nonzero(a == np.inf))
            neginf = int(np.count_nonzero(a == -np.inf))
            nonfinite = NonFinite(nan, posinf, neginf)
            a = a[np.isfinite(a)]
            if a.size == 0:
                return np.zeros((0, 3), np.float64), nonfinite
            mn, mx = a.min(), a.max()
    else:
        mn, mx = a.min(), a.max()
    mn, mx = float(mn), float(mx)
    out = np.empty((k, 3), np.float64)
    if mn == mx:
        out[:, 0] = mn
        out[:, 1] = mn
        out[:, 2] = 0.0
        out[-1, 2] = a.size
        return out, nonfinite
    span = mx - mn
    # A subnormal bucket width loses the precision the fast rule needs (indices past k).
    if math.isfinite(span) and span / k >= sys.float_info.min:
        edges = np.linspace(mn, mx, k + 1)
        counts = _uniform_counts(a, mn, span / k, k)
    else:  # extreme but finite: max - min overflows, or the bucket width is subnormal
        x = a.astype(np.float64)
        if not math.isfinite(span):
            x *= 0.5
            x -= mn * 0.5
            x /= mx * 0.5 - mn * 0.5
        else:
            x -= mn
            x /= span
        x *= k
        t = np.arange(k + 1) / k
        edges = mn * (1.0 - t) + mx * t  # each term stays finite, unlike linspace's step
        edges[0], edges[-1] = mn, mx
        idx = x.astype(np.intp)
        np.minimum(idx, k - 1, out=idx)
        counts = np.bincount(idx, minlength=k)
    out[:, 0] = edges[:-1]
    out[:, 1] = edges[1:]
    out[:, 2] = counts
    return out, nonfinite


_CHUNK = 1 << 15  # values per pass: the float64 buffer and the indices stay in the cache


def _uniform_counts(a: np.ndarray, mn: float, width: float, k: int) -> np.ndarray:
    """``bincount(floor((a - mn) / width))`` with the last bucket closed.

    The same float64 arithmetic as ``histogram_pb`` (so values on an edge land where they do
    there), in cache-sized chunks, on the calling thread: ``np.bincount`` holds the GIL, so
    a second thread gained nothing on 1M-8M values, and lost 5-10% where the kernel packs
    briefly busy threads onto one CPU (bench/NOTES.md, session 21).
    """
    # Index k is reachable only by values at (or rounding onto) the maximum: count it in its
    # own slot and fold it into the last bucket, instead of clamping every index.
    counts = np.zeros(k + 1, np.int64)
    buf = np.empty(min(_CHUNK, a.size), np.float64)
    idx = np.empty(buf.size, np.intp)
    for start in range(0, a.size, _CHUNK):
        part = a[start : start + _CHUNK]
        x, i = buf[: part.size], idx[: part.size]
        np.subtract(part, mn, out=x, dtype=np.float64)  # in float64 whatever the input
        x /= width
        i[...] = x
        counts += np.bincount(i, minlength=k + 1)
    counts[k - 1] += counts[k]
    return counts[:k]


_HISTOGRAM_CONTENT = histogram_data_pb2.HistogramPluginData(version=0).SerializeToString()


def histogram_metadata() -> summary_pb2.SummaryMetadata:
    """Metadata marking a ``[k, 3]`` tensor as a histogram (sent with a tag's first value)."""
    return summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(
            plugin_name="histograms", content=_HISTOGRAM_CONTENT
        ),
        data_class=summary_pb2.DATA_CLASS_TENSOR,
    )


def histogram_value(
    tag: str, buckets: np.ndarray, with_metadata: bool
) -> summary_pb2.Summary.Value:
    """A ``Summary.Value`` holding ``buckets`` as a ``DT_DOUBLE`` tensor."""
    tensor = tensor_pb2.TensorProto(
        dtype=types_pb2.DT_DOUBLE,
        tensor_shape=tensor_shape_pb2.TensorShapeProto(
            dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=s) for s in buckets.shape]
        ),
        tensor_content=np.ascontiguousarray(buckets, dtype="<f8").tobytes(),
    )
    value = summary_pb2.Summary.Value(tag=tag, tensor=tensor)
    if with_metadata:
        value.metadata.CopyFrom(histogram_metadata())
    return value
