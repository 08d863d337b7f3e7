"""Robust per-sample outlier scores for the exception projector, and their summaries.

Method: each sample is a row ``x_i`` of the value reshaped to ``N x d``. Its distance to the
coordinate-wise median row, ``r_i = ||x_i - median(X)||_2``, is turned into a robust z-score

    z_i = (r_i - median(r)) / (1.4826 * MAD(r)),   MAD(r) = median(|r - median(r)|)

(1.4826 makes the MAD a consistent estimate of the standard deviation for normal data). A
sample is an outlier when ``z_i > threshold`` (default 3.5, the usual cut-off for modified
z-scores, Iglewicz & Hoaglin). Median and MAD ignore up to half of the samples being extreme,
so planted outliers cannot hide themselves by inflating the scale, as they would with a mean
and standard deviation. If the MAD is 0 (more than half the distances are equal) the scale
falls back to ``1.2533 * mean(|r - median(r)|)``; if that is 0 too, every score is 0. Rows
holding NaN or Inf are left out of the median/MAD, get the score ``+inf`` and are flagged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "DEFAULT_THRESHOLD",
    "ANOMALY_PREFIX",
    "OutlierScores",
    "robust_outlier_scores",
    "report_table",
]

DEFAULT_THRESHOLD = 3.5
# Tag namespace of the anomaly summaries. TensorBoard's Time Series groups tags by their first
# component, sorts the groups by name and expands the first two: "~" sorts after letters and
# digits, so the user's own curves (loss, accuracy) open first and these follow, collapsed.
ANOMALY_PREFIX = "~anomaly/"
_MAD_TO_SIGMA = 1.482602218505602  # 1 / Phi^-1(3/4)
_MEANAD_TO_SIGMA = 1.2533141373155003  # sqrt(pi / 2)


@dataclass(frozen=True)
class OutlierScores:
    """Result of :func:`robust_outlier_scores` for ``N`` samples.

    ``scores`` (float64, ``+inf`` for non-finite rows), ``is_outlier`` (bool), ``distances``
    (to the median row; ``nan`` for non-finite rows) and the ``threshold`` used.
    """

    scores: np.ndarray
    is_outlier: np.ndarray
    distances: np.ndarray
    threshold: float

    @property
    def outliers(self) -> np.ndarray:
        """Indices of the flagged samples, highest score first (ties by index)."""
        idx = np.flatnonzero(self.is_outlier)
        return idx[np.lexsort((idx, -self.scores[idx]))]

    @property
    def num_nonfinite(self) -> int:
        return int(np.isnan(self.distances).sum())


def robust_outlier_scores(rows: np.ndarray, threshold: float = DEFAULT_THRESHOLD) -> OutlierScores:
    """Scores each row of the 2-D array ``rows`` (``N x d``) as described in the module doc."""
    rows = np.asarray(rows)
    if rows.ndim != 2:
        raise ValueError(f"robust_outlier_scores: rows must be 2-D (N x d), got shape {rows.shape}")
    if not np.isfinite(threshold):
        raise ValueError(f"robust_outlier_scores: threshold must be finite, got {threshold!r}")
    n = rows.shape[0]
    finite = np.isfinite(rows).all(axis=1)
    scores = np.full(n, np.inf)
    distances = np.full(n, np.nan)
    if finite.any():
        good = rows[finite].astype(np.float64)
        dist = np.linalg.norm(good - np.median(good, axis=0), axis=1)
        center = np.median(dist)
        deviation = np.abs(dist - center)
        scale = _MAD_TO_SIGMA * np.median(deviation)
        if scale == 0.0:
            scale = _MEANAD_TO_SIGMA * deviation.mean()
        scores[finite] = (dist - center) / scale if scale > 0.0 else 0.0
        distances[finite] = dist
    return OutlierScores(scores, scores > threshold, distances, float(threshold))


def _cell(value: object) -> str:
    text = str(value.tolist() if isinstance(value, np.ndarray) else value)
    # Cells are rendered as Markdown by the text plugin: keep each on one line, no pipes.
    return " ".join(text.split()).replace("|", "/")


def format_score(score: float) -> str:
    return "inf" if np.isposinf(score) else f"{score:.6g}"


def report_table(
    result: OutlierScores,
    labels: Sequence[object] | None = None,
    max_rows: int = 100,
    predictions: Sequence[object] | None = None,
) -> list[list[str]] | str:
    """The flagged samples as rows of strings (header row first): a rank-2 text summary,
    which TensorBoard's text plugin renders as an HTML table.

    Columns: rank, sample (row index), score, threshold and, when given, label and
    prediction. At most
    ``max_rows`` samples, highest score first. With no outlier, returns a one-line Markdown
    sentence instead (a rank-0 text renders as a paragraph, not a one-cell table).
    """
    flagged = result.outliers
    n = result.scores.shape[0]
    if flagged.size == 0:
        return (
            f"No outliers among {n} samples (robust z-score of the distance to the median "
            f"sample > {result.threshold:g})."
        )
    header = (
        ["rank", "sample", "score", "threshold"]
        + (["label"] if labels is not None else [])
        + (["prediction"] if predictions is not None else [])
    )
    table = [header]
    for rank, i in enumerate(flagged[:max_rows], start=1):
        row = [
            str(rank),
            str(int(i)),
            format_score(float(result.scores[i])),
            f"{result.threshold:g}",
        ]
        row += [_cell(column[i]) for column in (labels, predictions) if column is not None]
        table.append(row)
    return table
