"""``flowjob/_src/ops/_scatter.py``: scatters and segment sums."""

from __future__ import annotations

import numpy as np
from ops_helpers import value_and_grads

import flowjob as flow


def test_scatter_nd_and_tensor_scatter_nd():
    rng = np.random.default_rng(1)
    params = rng.normal(size=(4, 3))
    idx = np.array([[1], [3], [1]], np.int32)
    updates = rng.normal(size=(3, 3))
    value, (gp, _, gu), c = value_and_grads(flow.tensor_scatter_nd_add, params, idx, updates)
    want = params.copy()
    np.add.at(want, idx[:, 0], updates)
    np.testing.assert_allclose(value, want)
    np.testing.assert_allclose(gp, c)
    np.testing.assert_allclose(gu, c[idx[:, 0]])

    uniq = np.array([[2], [0]], np.int32)
    value, (gp, _, gu), c = value_and_grads(
        flow.tensor_scatter_nd_update, params, uniq, updates[:2]
    )
    want = params.copy()
    want[uniq[:, 0]] = updates[:2]
    np.testing.assert_allclose(value, want)
    mask = np.ones_like(params)
    mask[uniq[:, 0]] = 0
    np.testing.assert_allclose(gp, c * mask)
    np.testing.assert_allclose(gu, c[uniq[:, 0]])

    value, (_, gu), c = value_and_grads(lambda i, u: flow.scatter_nd(i, u, (5, 3)), idx, updates)
    want = np.zeros((5, 3))
    np.add.at(want, idx[:, 0], updates)
    np.testing.assert_allclose(value, want)
    np.testing.assert_allclose(gu, c[idx[:, 0]])


def test_unsorted_segment_sums():
    rng = np.random.default_rng(3)
    data = rng.normal(size=(2, 5, 3))
    ids = np.array([0, 2, 2, 5, 1], np.int32)  # 5 is out of range: dropped
    value, (g, _), c = value_and_grads(
        lambda d, i: flow.math.unsorted_segment_sum(d, i, num_segments=4, axis=1), data, ids
    )
    want = np.zeros((2, 4, 3))
    for j, s in enumerate(ids):
        if s < 4:
            want[:, s] += data[:, j]
    np.testing.assert_allclose(value, want)
    np.testing.assert_allclose(
        g, np.stack([c[:, s] if s < 4 else np.zeros((2, 3)) for s in ids], axis=1)
    )

    bids = np.array([[0, 1, 1, 0, 2], [2, 2, 0, 1, 1]], np.int32)
    value, _, _ = value_and_grads(
        lambda d, i: flow.math.unsorted_batch_segment_sum(d, i, num_segments=3), data, bids
    )
    want = np.zeros((2, 3, 3))
    for b in range(2):
        for j, s in enumerate(bids[b]):
            want[b, s] += data[b, j]
    np.testing.assert_allclose(value, want)

    like = np.zeros((6, 3))
    value, _, _ = value_and_grads(
        lambda d, i, lk: flow.math.unsorted_segment_sum_like(d, i, lk), data[0], ids, like
    )
    want = np.zeros((6, 3))
    for j, s in enumerate(ids):
        want[s] += data[0, j]
    np.testing.assert_allclose(value, want)
