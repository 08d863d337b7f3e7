"""NaN/Inf detection for everything a writer logs, reported as plain TensorBoard summaries.

Reported with no plugin needed (visualization.md 7):

* scalar ``~anomaly/nonfinite_count``: running total of non-finite values seen by the writer
  (scalars count 1 each, histograms count their non-finite elements), written whenever new
  ones appear;
* text ``~anomaly/report``: a Markdown table (header ``tag | first step | NaN | +Inf | -Inf``)
  of every tag that has had a non-finite value, rewritten when a new tag joins it; the first
  row is the first step and tag where one appeared;

both at the step of the value that brought them, or at their previous step if that is later:
their own steps never go back (TensorBoard drops the later points of a tag whose step goes
back, and tags reach a NaN in any order);
* one Python ``RuntimeWarning`` per writer, the first time.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable

from tensorboard.compat.proto import summary_pb2

from ._anomaly import ANOMALY_PREFIX
from ._histogram import NonFinite
from ._text import markdown_table, text_value

__all__ = ["NonFiniteMonitor", "COUNT_TAG", "REPORT_TAG"]

COUNT_TAG = f"{ANOMALY_PREFIX}nonfinite_count"
REPORT_TAG = f"{ANOMALY_PREFIX}report"
_HEADER = ["tag", "first step", "NaN", "+Inf", "-Inf"]


class NonFiniteMonitor:
    """Tracks non-finite values per tag; ``emit(summary, step)`` writes the report summaries."""

    def __init__(self, emit: Callable[[summary_pb2.Summary, int], None], where: str):
        self._emit = emit
        self._where = where
        self._lock = threading.Lock()
        self._total = 0
        self._first: dict[str, tuple[int, NonFinite]] = {}
        self._warned = False
        self._metadata_sent = False
        self._step = None  # step of the last summaries written (never decreases)

    @property
    def total(self) -> int:
        return self._total

    @property
    def first_seen(self) -> dict[str, tuple[int, NonFinite]]:
        """``{tag: (first step, counts at that step)}`` in order of appearance."""
        return dict(self._first)

    def observe(self, tag: str, step: int, counts: NonFinite) -> None:
        """Records ``counts`` (with ``counts.total > 0``) for ``tag`` at ``step``."""
        with self._lock:
            self._total += counts.total
            new_tag = tag not in self._first
            if new_tag:
                self._first[tag] = (step, counts)
            at = step if self._step is None else max(step, self._step)
            self._step = at
            summary = summary_pb2.Summary()
            summary.value.add(tag=COUNT_TAG, simple_value=float(self._total))
            if new_tag:
                rows = [_HEADER] + [
                    [t, str(s), str(c.nan), str(c.posinf), str(c.neginf)]
                    for t, (s, c) in self._first.items()
                ]
                summary.value.append(
                    text_value(REPORT_TAG, markdown_table(rows), not self._metadata_sent)
                )
                self._metadata_sent = True
            warn = not self._warned
            self._warned = True
        self._emit(summary, at)
        if warn:
            warnings.warn(
                f"{self._where}: non-finite value first seen in tag {tag!r} at step {step} "
                f"({counts.nan} NaN, {counts.posinf} +Inf, {counts.neginf} -Inf); see "
                f"'{REPORT_TAG}' and '{COUNT_TAG}' in TensorBoard",
                RuntimeWarning,
                stacklevel=4,
            )
