"""Robust outlier scores against an independent NumPy computation, and the report table."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flowjob._src.summary._anomaly import DEFAULT_THRESHOLD, report_table, robust_outlier_scores


def _median(a: np.ndarray, axis: int | None = None) -> np.ndarray:
    # Independent of np.median: sort and average the middle element(s).
    s = np.sort(a, axis=axis)
    n = s.shape[0] if axis == 0 else s.size
    s = s if axis == 0 else s.reshape(-1)
    mid = n // 2
    return s[mid] if n % 2 else (s[mid - 1] + s[mid]) / 2


def reference_scores(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    center = _median(x, axis=0)
    dist = np.sqrt(((x - center) ** 2).sum(axis=1))
    med = _median(dist)
    mad = _median(np.abs(dist - med))
    sigma = mad / 0.6744897501960817  # Phi^-1(3/4)
    if sigma == 0:
        sigma = np.mean(np.abs(dist - med)) * np.sqrt(np.pi / 2)
    return (dist - med) / sigma if sigma > 0 else np.zeros(len(x))


def planted(seed: int = 0, n: int = 300, d: int = 8, outliers=(3, 77, 150, 299)):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d)).astype(np.float32)
    for k, i in enumerate(outliers):
        x[i] += np.float32(6 + 2 * k) * np.sign(rng.normal(size=d)).astype(np.float32)
    return x, list(outliers)


def test_planted_outliers_flagged_inliers_not():
    x, outliers = planted()
    res = robust_outlier_scores(x)
    np.testing.assert_allclose(res.scores, reference_scores(x), rtol=1e-9, atol=1e-9)
    assert sorted(np.flatnonzero(res.is_outlier).tolist()) == sorted(outliers)
    inliers = np.setdiff1d(np.arange(len(x)), outliers)
    assert res.scores[inliers].max() < DEFAULT_THRESHOLD
    assert res.scores[outliers].min() > DEFAULT_THRESHOLD
    # Highest score first: the last planted outlier was pushed furthest.
    assert res.outliers.tolist() == sorted(outliers, key=lambda i: -res.scores[i])
    assert res.outliers[0] == 299


def test_threshold_controls_flags():
    x, _ = planted(seed=1)
    ref = reference_scores(x)
    for thr in (1.0, 2.5, 5.0):
        res = robust_outlier_scores(x, threshold=thr)
        assert np.array_equal(res.is_outlier, ref > thr)
        assert res.threshold == thr


def test_mad_zero_falls_back_to_mean_absolute_deviation():
    x = np.zeros((11, 3), np.float32)
    x[4] = [3.0, 4.0, 0.0]  # distance 5, the other ten are at distance 0 -> MAD is 0
    res = robust_outlier_scores(x)
    expected = reference_scores(x)
    assert expected[4] == pytest.approx(5 / (5 / 11 * np.sqrt(np.pi / 2)))
    np.testing.assert_allclose(res.scores, expected, rtol=1e-12)
    assert np.flatnonzero(res.is_outlier).tolist() == [4]


def test_identical_rows_score_zero():
    res = robust_outlier_scores(np.ones((5, 2)))
    assert res.scores.tolist() == [0.0] * 5
    assert not res.is_outlier.any()


def test_nonfinite_rows_are_flagged_and_excluded_from_the_statistics():
    x, _ = planted(seed=2, n=60, outliers=(3, 40))
    bad = x.copy()
    bad[10, 0] = np.nan
    bad[20, 5] = np.inf
    res = robust_outlier_scores(bad)
    keep = np.setdiff1d(np.arange(60), [10, 20])
    np.testing.assert_allclose(res.scores[keep], reference_scores(x[keep]), rtol=1e-9)
    assert np.isposinf(res.scores[[10, 20]]).all()
    assert res.is_outlier[[10, 20]].all()
    assert res.num_nonfinite == 2


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), shift=st.floats(-1e3, 1e3), scale=st.floats(1e-2, 1e2))
def test_scores_invariant_to_shift_and_scale(seed, shift, scale):
    x = np.random.default_rng(seed).normal(size=(40, 5))
    a = robust_outlier_scores(x).scores
    b = robust_outlier_scores(x * scale + shift).scores
    np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_report_table_lists_flagged_samples_by_score():
    x, outliers = planted()
    res = robust_outlier_scores(x)
    labels = [f"class{i % 10}" for i in range(len(x))]
    predictions = [f"p{i % 7}" for i in range(len(x))]
    table = np.array(report_table(res, labels, predictions=predictions))
    assert table.shape == (len(outliers) + 1, 6)
    assert table[0].tolist() == ["rank", "sample", "score", "threshold", "label", "prediction"]
    order = sorted(outliers, key=lambda i: -res.scores[i])
    assert [int(s) for s in table[1:, 1]] == order
    assert table[1:, 0].tolist() == [str(k) for k in range(1, len(outliers) + 1)]
    for row in table[1:]:
        i = int(row[1])
        assert float(row[2]) == pytest.approx(res.scores[i], rel=1e-5)
        assert (row[3], row[4], row[5]) == ("3.5", labels[i], predictions[i])
    # No label/prediction columns without them.
    assert np.shape(report_table(res)) == (len(outliers) + 1, 4)


def test_report_without_outliers_is_a_sentence():
    text = report_table(robust_outlier_scores(np.ones((7, 3))))
    assert isinstance(text, str) and "No outliers among 7 samples" in text


def test_bad_input_is_rejected():
    with pytest.raises(ValueError, match="must be 2-D"):
        robust_outlier_scores(np.ones(4))
    with pytest.raises(ValueError, match="threshold must be finite"):
        robust_outlier_scores(np.ones((4, 2)), threshold=float("nan"))
