"""Anomaly results as ordinary summaries that stock TensorBoard shows without a plugin.

For ``tag`` at ``step``: ``~anomaly/<tag>/report`` (text: a Markdown table of the flagged
samples, header first, or a sentence when there are none), scalars
``~anomaly/<tag>/outliers``, ``~anomaly/<tag>/nonfinite`` and ``~anomaly/<tag>/max_score``, and
``~anomaly/<tag>/samples`` (one image: a grid of the flagged samples, highest score first, at
most ``MAX_GRID_SAMPLES``) when the samples are images.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._anomaly import ANOMALY_PREFIX, OutlierScores, report_table
from ._projector_images import make_grid
from ._text import markdown_table

__all__ = ["write_anomaly_summaries", "MAX_GRID_SAMPLES"]

MAX_GRID_SAMPLES = 64


def write_anomaly_summaries(
    writer,
    tag: str,
    step: int,
    result: OutlierScores,
    labels: Sequence[object] | None = None,
    images: np.ndarray | None = None,
    predictions: Sequence[object] | None = None,
) -> None:
    """Logs the anomaly summaries of ``result`` at ``step`` with ``writer`` (a
    ``SummaryWriter``) and flushes, so TensorBoard sees them on its next reload."""
    prefix = f"{ANOMALY_PREFIX}{tag}"
    finite = result.scores[np.isfinite(result.scores)]
    report = report_table(result, labels, predictions=predictions)
    writer.text(
        f"{prefix}/report", report if isinstance(report, str) else markdown_table(report), step
    )
    writer.scalar(f"{prefix}/outliers", int(result.is_outlier.sum()), step)
    writer.scalar(f"{prefix}/nonfinite", result.num_nonfinite, step)
    writer.scalar(f"{prefix}/max_score", float(finite.max()) if finite.size else 0.0, step)
    flagged = result.outliers[:MAX_GRID_SAMPLES]
    if images is not None and flagged.size:
        writer.image(f"{prefix}/samples", make_grid(images[flagged]), step)
    writer.flush()
