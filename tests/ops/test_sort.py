"""``flowjob/_src/ops/_sort.py``: sort, argsort, argmax, top_k and in_top_k."""

from __future__ import annotations

from typing import Tuple

import numpy as np

import flowjob as flow
import flowjob.typing as tp


def test_sort_argsort_reverse_tril_diag_expand():
    x = np.array([[3.0, 1.0, 2.0, 1.0], [0.5, -1.0, 0.5, 4.0], [2.0, 2.0, -3.0, 0.0]], np.float32)
    v = np.array([1.0, 2.0, 3.0], np.float32)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3, 4)), v: tp.Numpy.Placeholder((3,))) -> tp.Bundle[tp.Numpy]:
        return {
            "sort": flow.sort(x),
            "sort_desc0": flow.sort(x, axis=0, direction="DESCENDING"),
            "argsort": flow.argsort(x),
            "argsort_desc": flow.argsort(x, direction="DESCENDING"),
            "reverse": flow.reverse(x, [0, 1]),
            "tril": flow.math.tril(x, 1, fill_value=-9.0),
            "diag_m": flow.diag(x, 1),
            "diag_v": flow.diag(v, -1),
            "expand": flow.expand(flow.reshape(v, (3, 1)), (2, -1, 4)),
            "masked": flow.masked_fill(x, x > 1.5, 0.0),
        }

    out = job(x, v)
    np.testing.assert_array_equal(out["sort"], np.sort(x, axis=1))
    np.testing.assert_array_equal(out["sort_desc0"], -np.sort(-x, axis=0))
    np.testing.assert_array_equal(out["argsort"], np.argsort(x, axis=1, kind="stable"))
    np.testing.assert_array_equal(out["argsort_desc"], np.argsort(-x, axis=1, kind="stable"))
    assert out["argsort"].dtype == np.int32
    np.testing.assert_array_equal(out["reverse"], x[::-1, ::-1])
    np.testing.assert_array_equal(out["tril"], np.where(np.tril(np.ones((3, 4)), 1) > 0, x, -9))
    np.testing.assert_array_equal(out["diag_m"], np.diag(x, 1))
    np.testing.assert_array_equal(out["diag_v"], np.diag(v, -1))
    np.testing.assert_array_equal(out["expand"], np.broadcast_to(v.reshape(3, 1), (2, 3, 4)))
    np.testing.assert_array_equal(out["masked"], np.where(x > 1.5, 0, x))


def test_in_top_k_polyval_l2_normalize_broadcast_compatible():
    preds = np.array([[0.1, 0.5, 0.5, 0.2], [0.9, 0.0, 0.3, 0.3]], np.float32)
    targets = np.array([2, 3], np.int32)
    x = np.array([[1.0, -2.0, 2.0], [0.0, 0.0, 0.0]], np.float32)

    @flow.global_function()
    def job(
        t: tp.Numpy.Placeholder((2,), dtype=flow.int32),
        p: tp.Numpy.Placeholder((2, 4)),
        x: tp.Numpy.Placeholder((2, 3)),
    ) -> tp.Bundle[tp.Numpy]:
        return {
            "top1": flow.math.in_top_k(t, p, 1),
            "top2": flow.math.in_top_k(t, p, 2),
            "poly": flow.math.polyval([2.0, -1.0, 3.0], x),
            "l2": flow.math.l2_normalize(x, axis=1),
            "bcast": flow.broadcast_to_compatible_with(
                flow.reshape(flow.math.reduce_sum(x, axis=1), (2, 1)), [x, flow.zeros((1, 1, 3))]
            ),
        }

    out = job(targets, preds, x)
    np.testing.assert_array_equal(out["top1"], [1, 0])  # a tie at the boundary counts as in
    np.testing.assert_array_equal(out["top2"], [1, 1])
    assert out["top1"].dtype == np.int8
    np.testing.assert_allclose(out["poly"], 2 * x**2 - x + 3)
    norm = np.sqrt(np.maximum((x**2).sum(1, keepdims=True), 1e-12))
    np.testing.assert_allclose(out["l2"], x / norm, rtol=1e-6)
    assert out["bcast"].shape == (1, 2, 3)
    np.testing.assert_allclose(out["bcast"][0], np.broadcast_to(x.sum(1, keepdims=True), (2, 3)))


def test_argmax_and_top_k_return_int32_indices():
    x = np.array([[1, 3, 8, 7, 2], [1, 9, 4, 3, 2]], np.float32)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 5))) -> Tuple[(tp.Numpy,) * 5]:
        return (
            flow.math.argmax(x),
            flow.math.argmax(x, axis=0),
            flow.math.top_k(x, k=3),
            flow.math.top_k(x, axis=0, k=1),
            flow.math.top_k(x, k=2, sorted=False),
        )

    am, am0, top3, top_axis0, unsorted = job(x)
    for arr in (am, am0, top3, top_axis0, unsorted):
        assert arr.dtype == np.int32
    np.testing.assert_array_equal(am, [2, 1])
    np.testing.assert_array_equal(am0, x.argmax(0))
    np.testing.assert_array_equal(top3, np.argsort(-x, axis=1, kind="stable")[:, :3])
    np.testing.assert_array_equal(top_axis0, x.argmax(0)[None, :])
    np.testing.assert_array_equal(unsorted, np.sort(np.argsort(-x, axis=1)[:, :2], axis=1))
