"""Host-side ``SummaryWriter``: one run directory, one event file, every summary kind.

This is the one implementation behind both the Python API and the job ops in ``_ops.py``.
Scalars are ``simple_value`` (read by every TensorBoard path, including the legacy
``EventAccumulator.Scalars``); histograms, images and text are new-style tensors whose plugin
metadata is sent with the first value of each tag only. Every scalar and histogram is checked
for NaN/Inf (see ``_nonfinite.py``).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Mapping

import numpy as np
from google.protobuf import text_format
from tensorboard.compat.proto import event_pb2, summary_pb2

from ._event_writer import EventFileWriter
from ._histogram import DEFAULT_BINS, NonFinite, check_bins, histogram_buckets, histogram_value
from ._hparams import Metric, TrialStatus, session_end_summary
from ._hparams import hparams as _hparams_summary
from ._image import as_image_batch, image_value
from ._live_writers import register, unregister
from ._nonfinite import NonFiniteMonitor
from ._scalar import F32_MAX, scalar_event_bytes, scalar_tag_prefix, to_float32
from ._text import text_value

__all__ = ["SummaryWriter", "parse_summary"]

_ONE_NAN = NonFinite(1, 0, 0)
_ONE_POSINF = NonFinite(0, 1, 0)
_ONE_NEGINF = NonFinite(0, 0, 1)


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _step(step, what: str) -> int:
    s = None
    if type(step) is int:
        s = step
    elif isinstance(step, (np.ndarray, np.generic)) or hasattr(step, "__array__"):
        a = np.asarray(step)
        if a.size == 1 and np.issubdtype(a.dtype, np.integer):
            s = int(a.reshape(()))
    elif isinstance(step, int) and not isinstance(step, bool):
        s = int(step)
    if s is None:
        raise TypeError(
            f"{what}: step must be an int (or a 1-element integer array), got "
            f"{type(step).__name__} {step!r}"
        )
    if not _INT64_MIN <= s <= _INT64_MAX:
        raise ValueError(f"{what}: step must fit in int64 [-2**63, 2**63 - 1], got {s}")
    return s


def _tag(tag, what: str) -> str:
    if type(tag) is not str or not tag:
        raise TypeError(f"{what}: tag must be a non-empty str, got {tag!r}")
    return tag


def _scalar_value(value, what: str) -> float:
    if isinstance(value, (float, int)) and not isinstance(value, bool):
        return float(value)
    try:
        a = np.asarray(value)
    except Exception as e:
        raise TypeError(f"{what}: value must be a real number, got {type(value).__name__}") from e
    if (
        a.size != 1
        or not (np.issubdtype(a.dtype, np.number) or a.dtype == np.bool_)
        or np.issubdtype(a.dtype, np.complexfloating)
    ):
        raise TypeError(
            f"{what}: value must be a real number or a 1-element real array, got "
            f"dtype {a.dtype} shape {a.shape}"
        )
    return float(a.reshape(()))


def parse_summary(summary, what: str = "pb") -> summary_pb2.Summary:
    """``summary`` as a ``Summary``: a ``Summary`` itself, or its protobuf text format given as
    str, bytes or an int8/uint8 array (OneFlow's ``np.fromstring(str(summary), np.int8)``)."""
    if isinstance(summary, summary_pb2.Summary):
        return summary
    if isinstance(summary, np.ndarray):
        if summary.dtype not in (np.int8, np.uint8):
            raise TypeError(
                f"{what}: a Summary given as an array must be int8/uint8 bytes of "
                f"its text format, got dtype {summary.dtype}"
            )
        summary = summary.tobytes()
    if isinstance(summary, (bytes, bytearray)):
        try:
            summary = bytes(summary).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(f"{what}: value is not UTF-8 text of a Summary: {e}") from e
    if not isinstance(summary, str):
        raise TypeError(
            f"{what}: expected a Summary or its text format, got {type(summary).__name__}"
        )
    try:
        return text_format.Parse(summary, summary_pb2.Summary())
    except text_format.ParseError as e:
        raise ValueError(f"{what}: value is not a text-format Summary: {e}") from e


def _value_kind(value: summary_pb2.Summary.Value) -> str:
    which = value.WhichOneof("value")
    if which == "simple_value":
        return "scalar"
    plugin = value.metadata.plugin_data.plugin_name
    return plugin or which or "none"


class SummaryWriter:
    """Writes summaries for TensorBoard into ``logdir`` (one run; created if missing).

    Each writer owns a new event file, so use one writer per run directory (the graph, the
    projector's anomaly summaries and the job ops log into an open writer of their directory
    instead of opening a second file: see ``_live_writers.py``). Logging returns
    after queueing; a background thread writes and flushes at least every ``flush_secs``.
    Usable as a context manager (closing on exit).

    Args:
        logdir: the run's folder.
        flush_secs: the longest time a logged value waits before it is written.
        max_queue: the number of records queued before logging waits for the writer.
        filename_suffix: appended to the event file's name.
        histogram_bins: the number of bins of histograms (at most 65,536).
        png_compress_level: zlib level of logged images (0..9).

    Raises:
        TypeError: ``logdir`` is not a path.
        ValueError: ``histogram_bins`` or ``png_compress_level`` is out of range.

    Examples:
        >>> import tempfile, flowjob as flow
        >>> from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
        >>> logdir = tempfile.mkdtemp()
        >>> with flow.summary.SummaryWriter(logdir) as writer:
        ...     writer.scalar("loss", 0.5, step=1)
        ...     writer.scalar("loss", 0.25, step=2)
        >>> events = EventAccumulator(logdir)
        >>> _ = events.Reload()
        >>> [(e.step, e.value) for e in events.Scalars("loss")]
        [(1, 0.5), (2, 0.25)]
    """

    def __init__(
        self,
        logdir: str | os.PathLike,
        flush_secs: float = 0.5,
        *,
        max_queue: int = 1024,
        filename_suffix: str = "",
        histogram_bins: int = DEFAULT_BINS,
        png_compress_level: int = 6,
    ):
        if not isinstance(logdir, (str, os.PathLike)) or not os.fspath(logdir):
            raise TypeError(f"SummaryWriter: logdir must be a non-empty path, got {logdir!r}")
        check_bins(histogram_bins, "SummaryWriter", "histogram_bins")
        if not isinstance(png_compress_level, int) or not 0 <= png_compress_level <= 9:
            raise ValueError(
                f"SummaryWriter: png_compress_level must be 0..9, got {png_compress_level!r}"
            )
        self._events = EventFileWriter(logdir, flush_secs, max_queue, filename_suffix)
        self._bins = histogram_bins
        self._png_level = png_compress_level
        self._kinds: dict[str, str] = {}
        self._scalar_prefix: dict[str, bytes] = {}
        self._monitor = NonFiniteMonitor(
            self._write_summary, where=f"SummaryWriter({os.fspath(logdir)!r})"
        )
        self._session_open = False
        self._closed = False
        register(self)

    # --- properties ----------------------------------------------------------------------
    @property
    def logdir(self) -> str:
        return self._events.logdir

    @property
    def path(self) -> str:
        """The event file being written."""
        return self._events.path

    @property
    def nonfinite(self) -> NonFiniteMonitor:
        """The NaN/Inf monitor (``.total``, ``.first_seen``)."""
        return self._monitor

    @property
    def closed(self) -> bool:
        return self._closed

    # --- summary kinds -------------------------------------------------------------------
    def scalar(self, tag: str, value, step: int) -> None:
        """Logs a scalar (stored as float32)."""
        prefix = self._scalar_prefix.get(tag) if type(tag) is str else None
        if prefix is None:
            prefix = self._new_scalar_tag(tag)
        v = value if type(value) is float else _scalar_value(value, "SummaryWriter.scalar")
        s = (
            step
            if type(step) is int and 0 <= step <= _INT64_MAX
            else _step(step, "SummaryWriter.scalar")
        )
        if -F32_MAX <= v <= F32_MAX:
            self._events.add_serialized(scalar_event_bytes(prefix, v, s, time.time()))
            return
        v = to_float32(v)  # NaN, +-Inf, or beyond float32's range
        self._events.add_serialized(scalar_event_bytes(prefix, v, s, time.time()))
        if not math.isfinite(v):
            self._monitor.observe(
                tag, s, _ONE_NAN if v != v else _ONE_POSINF if v > 0 else _ONE_NEGINF
            )

    def histogram(self, tag: str, values, step: int, bins: int | None = None) -> None:
        """Logs a histogram of all elements of ``values`` (NaN/Inf left out and reported)."""
        what = "SummaryWriter.histogram"
        first = self._claim(_tag(tag, what), "histograms")
        s = _step(step, what)
        buckets, nonfinite = histogram_buckets(
            values, self._bins if bins is None else bins, what=what
        )
        self._write_summary(summary_pb2.Summary(value=[histogram_value(tag, buckets, first)]), s)
        if nonfinite.total:
            self._monitor.observe(tag, s, nonfinite)

    def histogram_from_buckets(
        self, tag: str, buckets: np.ndarray, nonfinite: NonFinite, step: int
    ) -> None:
        """Logs a histogram already bucketed (``[k, 3]`` rows ``left, right, count``, as
        ``histogram`` writes them), with the counts of the NaN/Inf values left out."""
        what = "SummaryWriter.histogram_from_buckets"
        first = self._claim(_tag(tag, what), "histograms")
        s = _step(step, what)
        buckets = np.asarray(buckets, np.float64)
        if buckets.ndim != 2 or buckets.shape[1] != 3:
            raise ValueError(f"{what}: buckets must have shape [k, 3], got {buckets.shape}")
        self._write_summary(summary_pb2.Summary(value=[histogram_value(tag, buckets, first)]), s)
        if nonfinite.total:
            self._monitor.observe(tag, s, nonfinite)

    def image(self, tag: str, images, step: int) -> None:
        """Logs uint8 images ``(N, H, W, C)``, ``(H, W, C)`` or ``(H, W)``; C in {1, 3, 4}.

        N images become N samples of one tag. PNG encoding runs on the writer thread.
        """
        what = "SummaryWriter.image"
        _tag(tag, what)
        s = _step(step, what)
        batch = as_image_batch(images, what)
        first = self._claim(tag, "images")
        wall = time.time()
        level = self._png_level

        def encode() -> bytes:
            summary = summary_pb2.Summary(value=[image_value(tag, batch, first, level)])
            return event_pb2.Event(wall_time=wall, step=s, summary=summary).SerializeToString()

        self._events.add_deferred(encode)

    def text(self, tag: str, text, step: int) -> None:
        """Logs text: a str renders as Markdown, a list of str or of rows as a table."""
        what = "SummaryWriter.text"
        first = self._claim(_tag(tag, what), "text")
        s = _step(step, what)
        self._write_summary(summary_pb2.Summary(value=[text_value(tag, text, first, what)]), s)

    def hparams(
        self,
        hparams: Mapping,
        metrics: Mapping[str, float] | None = None,
        *,
        trial_id: str | None = None,
        experiment: bool = True,
        step: int = 0,
    ) -> None:
        """Logs this run as one trial of the HParams table (layout: see ``_hparams.py``).

        ``hparams`` is as for ``flow.summary.hparams``; ``metrics`` maps metric tags to values
        (added as ``Metric`` keys). Their values go to the scalar tags ``~hparams/<name>``
        (``flow.summary.metric_tag(name)``), never into a series of the same name; later
        values logged with :meth:`scalar` under that tag update the column (the last value is
        shown). The session end status is
        written by :meth:`close` (``success``, or ``failure`` when a ``with`` block raised).
        """
        what = "SummaryWriter.hparams"
        merged = dict(hparams) if isinstance(hparams, Mapping) else hparams
        if metrics is not None:
            if not isinstance(metrics, Mapping):
                raise TypeError(
                    f"{what}: metrics must be a dict of tag -> value, got {type(metrics).__name__}"
                )
            for name, v in metrics.items():
                merged[Metric(name)] = v
        summary = _hparams_summary(merged, trial_id=trial_id, experiment=experiment, status=None)
        self.pb(summary, _step(step, what))
        self._session_open = True

    def pb(self, summary, step: int) -> None:
        """Logs a ``Summary`` as is (or parsed from its text format; see ``parse_summary``)."""
        what = "SummaryWriter.pb"
        summary = parse_summary(summary, what)
        s = _step(step, what)
        for value in summary.value:
            self._claim(_tag(value.tag, what), _value_kind(value))
        self._write_summary(summary, s)
        for value in summary.value:
            if value.WhichOneof("value") == "simple_value" and not math.isfinite(
                value.simple_value
            ):
                v = value.simple_value
                self._monitor.observe(
                    value.tag, s, _ONE_NAN if v != v else _ONE_POSINF if v > 0 else _ONE_NEGINF
                )

    def graph_def(self, graph_def) -> None:
        """Logs a serialized ``GraphDef`` (bytes, or a message with ``SerializeToString``)."""
        if hasattr(graph_def, "SerializeToString"):
            graph_def = graph_def.SerializeToString()
        if not isinstance(graph_def, (bytes, bytearray)):
            raise TypeError(
                "SummaryWriter.graph_def: expected serialized GraphDef bytes, got "
                f"{type(graph_def).__name__}"
            )
        self._events.add_event(event_pb2.Event(wall_time=time.time(), graph_def=bytes(graph_def)))

    # --- lifecycle -----------------------------------------------------------------------
    def flush(self) -> None:
        """Writes everything logged so far; raises a pending I/O error."""
        self._events.flush()

    def close(self, status: TrialStatus | str = TrialStatus.SUCCESS) -> None:
        """Ends an open hparams session with ``status``, then flushes and closes the file."""
        if self._closed:
            return
        self._closed = True
        unregister(self)
        if self._session_open:
            self._session_open = False
            self._write_summary(session_end_summary(status), 0)
        self._events.close()

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(TrialStatus.FAILURE if exc_type is not None else TrialStatus.SUCCESS)

    def __repr__(self) -> str:
        return f"SummaryWriter({self.logdir!r}, file={os.path.basename(self.path)!r})"

    # --- internals -----------------------------------------------------------------------
    def _claim(self, tag: str, kind: str) -> bool:
        """Registers ``tag`` as ``kind``; True the first time (send plugin metadata then)."""
        known = self._kinds.get(tag)
        if known is None:
            self._kinds[tag] = kind
            return True
        if known != kind:
            raise ValueError(
                f"SummaryWriter: tag {tag!r} was logged as {known} and cannot now be "
                f"logged as {kind} (TensorBoard fixes a tag's kind on first use)"
            )
        return False

    def _new_scalar_tag(self, tag) -> bytes:
        self._claim(_tag(tag, "SummaryWriter.scalar"), "scalar")
        prefix = self._scalar_prefix[tag] = scalar_tag_prefix(tag.encode("utf-8"))
        return prefix

    def _write_summary(self, summary: summary_pb2.Summary, step: int) -> None:
        self._events.add_serialized(
            event_pb2.Event(wall_time=time.time(), step=step, summary=summary).SerializeToString()
        )
