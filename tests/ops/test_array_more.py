"""2-D pads, scatters, segment sums, sort/argsort, tril, diag, expand, reverse, in_top_k,
polyval, l2_normalize and friends against NumPy (gradients by finite differences)."""

from __future__ import annotations

import math
from typing import Tuple

import numpy as np
import pytest
from ops_helpers import numeric_grad, value_and_grads

import flowjob as flow
import flowjob.typing as tp


@pytest.mark.parametrize("op,mode", [("reflection_pad2d", "reflect"),
                                     ("replication_pad2d", "edge"),
                                     ("zero_pad2d", "constant")])
def test_pad2d_modes_and_gradients(op, mode):
    x = np.random.default_rng(0).normal(size=(2, 2, 3, 4))
    padding = [2, 1, 0, 2]  # left, right, top, bottom

    def ref(a):
        return np.pad(a, ((0, 0), (0, 0), (0, 2), (2, 1)), mode=mode)

    value, (g,), c = value_and_grads(lambda b: getattr(flow, op)(b, padding), x)
    np.testing.assert_array_equal(value, ref(x))
    np.testing.assert_allclose(g, numeric_grad(ref, [x], c)[0], rtol=1e-6, atol=1e-8)


def test_constant_pad2d_value_and_errors():
    x = np.arange(8, dtype=np.int32).reshape(1, 2, 2, 2)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((1, 2, 2, 2), dtype=flow.int32)) -> tp.Numpy:
        return flow.constant_pad2d(x, 1, constant_value=7)

    np.testing.assert_array_equal(
        job(x), np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=7))

    @flow.global_function()
    def bad(x: tp.Numpy.Placeholder((1, 1, 2, 2))) -> tp.Numpy:
        return flow.reflection_pad2d(x, 2)

    with pytest.raises(flow.OpError, match=r"reflection_pad2d.*smaller than"):
        bad(np.zeros((1, 1, 2, 2), np.float32))


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
    value, (gp, _, gu), c = value_and_grads(flow.tensor_scatter_nd_update, params, uniq,
                                            updates[:2])
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


def test_dim_gather_is_pytorch_gather():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(3, 4))
    index = np.array([[0, 3], [1, 1], [2, 0]], np.int64)
    value, (g, _), c = value_and_grads(lambda a, i: flow.dim_gather(a, 1, i), x, index)
    np.testing.assert_array_equal(value, np.take_along_axis(x, index, axis=1))
    grad = np.zeros_like(x)
    for r in range(3):
        np.add.at(grad[r], index[r], c[r])
    np.testing.assert_allclose(g, grad)


def test_unsorted_segment_sums():
    rng = np.random.default_rng(3)
    data = rng.normal(size=(2, 5, 3))
    ids = np.array([0, 2, 2, 5, 1], np.int32)  # 5 is out of range: dropped
    value, (g, _), c = value_and_grads(
        lambda d, i: flow.math.unsorted_segment_sum(d, i, num_segments=4, axis=1), data, ids)
    want = np.zeros((2, 4, 3))
    for j, s in enumerate(ids):
        if s < 4:
            want[:, s] += data[:, j]
    np.testing.assert_allclose(value, want)
    np.testing.assert_allclose(g, np.stack([c[:, s] if s < 4 else np.zeros((2, 3))
                                            for s in ids], axis=1))

    bids = np.array([[0, 1, 1, 0, 2], [2, 2, 0, 1, 1]], np.int32)
    value, _, _ = value_and_grads(
        lambda d, i: flow.math.unsorted_batch_segment_sum(d, i, num_segments=3), data, bids)
    want = np.zeros((2, 3, 3))
    for b in range(2):
        for j, s in enumerate(bids[b]):
            want[b, s] += data[b, j]
    np.testing.assert_allclose(value, want)

    like = np.zeros((6, 3))
    value, _, _ = value_and_grads(
        lambda d, i, lk: flow.math.unsorted_segment_sum_like(d, i, lk), data[0], ids, like)
    want = np.zeros((6, 3))
    for j, s in enumerate(ids):
        want[s] += data[0, j]
    np.testing.assert_allclose(value, want)


def test_sort_argsort_reverse_tril_diag_expand():
    x = np.array([[3.0, 1.0, 2.0, 1.0], [0.5, -1.0, 0.5, 4.0], [2.0, 2.0, -3.0, 0.0]],
                 np.float32)
    v = np.array([1.0, 2.0, 3.0], np.float32)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3, 4)), v: tp.Numpy.Placeholder((3,))) -> tp.Bundle[tp.Numpy]:
        return {"sort": flow.sort(x), "sort_desc0": flow.sort(x, axis=0, direction="DESCENDING"),
                "argsort": flow.argsort(x), "argsort_desc": flow.argsort(x, direction="DESCENDING"),
                "reverse": flow.reverse(x, [0, 1]), "tril": flow.math.tril(x, 1, fill_value=-9.0),
                "diag_m": flow.diag(x, 1), "diag_v": flow.diag(v, -1),
                "expand": flow.expand(flow.reshape(v, (3, 1)), (2, -1, 4)),
                "masked": flow.masked_fill(x, x > 1.5, 0.0)}

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
    def job(t: tp.Numpy.Placeholder((2,), dtype=flow.int32), p: tp.Numpy.Placeholder((2, 4)),
            x: tp.Numpy.Placeholder((2, 3))) -> tp.Bundle[tp.Numpy]:
        return {"top1": flow.math.in_top_k(t, p, 1), "top2": flow.math.in_top_k(t, p, 2),
                "poly": flow.math.polyval([2.0, -1.0, 3.0], x),
                "l2": flow.math.l2_normalize(x, axis=1),
                "bcast": flow.broadcast_to_compatible_with(
                    flow.reshape(flow.math.reduce_sum(x, axis=1), (2, 1)),
                    [x, flow.zeros((1, 1, 3))])}

    out = job(targets, preds, x)
    np.testing.assert_array_equal(out["top1"], [1, 0])  # a tie at the boundary counts as in
    np.testing.assert_array_equal(out["top2"], [1, 1])
    assert out["top1"].dtype == np.int8
    np.testing.assert_allclose(out["poly"], 2 * x ** 2 - x + 3)
    norm = np.sqrt(np.maximum((x ** 2).sum(1, keepdims=True), 1e-12))
    np.testing.assert_allclose(out["l2"], x / norm, rtol=1e-6)
    assert out["bcast"].shape == (1, 2, 3)
    np.testing.assert_allclose(out["bcast"][0], np.broadcast_to(x.sum(1, keepdims=True), (2, 3)))


def test_range_and_fused_bias_add_ops():
    v = np.random.default_rng(5).normal(size=(4, 3)).astype(np.float32)
    b = np.array([0.5, -1.0, 2.0], np.float32)
    seen = {}

    @flow.global_function(type="train")
    def train(v: tp.Numpy.Placeholder((4, 3)), b: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(1,), initializer=flow.zeros_initializer())
        dropped = flow.nn.fused_bias_add_dropout(v + w, b, data_format="NC", rate=0.5)
        flow.watch(dropped, lambda x: seen.setdefault("dropped", x))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0]),
                           momentum=0).minimize(flow.math.reduce_sum(dropped))
        return flow.nn.fused_bias_add_gelu(v, b, data_format="NC")

    @flow.global_function()
    def ranges() -> tp.Bundle[tp.Numpy]:
        return {"a": flow.range(1, 10, 3, dtype=flow.float64), "b": flow.range(3),
                "c": flow.range(0, 7, 2, dtype=flow.int32)}

    gelu = train(v, b)
    flow.sync_default_session()
    z = v + b
    np.testing.assert_allclose(gelu, 0.5 * z * (1 + np.vectorize(math.erf)(z / np.sqrt(2))),
                               rtol=1e-5, atol=1e-6)
    kept = seen["dropped"] != 0
    assert 0 < kept.sum() < kept.size
    np.testing.assert_allclose(seen["dropped"][kept], 2 * z[kept], rtol=1e-6)
    out = ranges()
    np.testing.assert_array_equal(out["a"], np.arange(1, 10, 3, dtype=np.float64))
    assert out["b"].dtype == np.int64 and out["b"].tolist() == [0, 1, 2]
    assert out["c"].dtype == np.int32 and out["c"].tolist() == [0, 2, 4, 6]


def test_gradient_ops_match_autodiff_of_the_forward_ops():
    rng = np.random.default_rng(6)
    x, dy = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))

    def np_softmax(v):
        e = np.exp(v - v.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3, 4), dtype=flow.float64),
            dy: tp.Numpy.Placeholder((3, 4), dtype=flow.float64)) -> tp.Bundle[tp.Numpy]:
        return {"gelu": flow.math.gelu_grad(x, dy),
                "sigmoid": flow.math.sigmoid_grad(flow.math.sigmoid(x), dy),
                "softmax": flow.nn.softmax_grad(flow.nn.softmax(x), dy)}

    out = job(x, dy)
    gelu = np.vectorize(lambda v: 0.5 * v * (1 + math.erf(v / math.sqrt(2))))
    np.testing.assert_allclose(out["gelu"], dy * (gelu(x + 1e-6) - gelu(x - 1e-6)) / 2e-6,
                               rtol=1e-6)
    s = 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(out["sigmoid"], dy * s * (1 - s), rtol=1e-12)
    # softmax's vector-Jacobian product, row by row
    p = np_softmax(x)
    want = np.stack([(np.diag(r) - np.outer(r, r)) @ d for r, d in zip(p, dy)])
    np.testing.assert_allclose(out["softmax"], want, rtol=1e-10, atol=1e-12)


def test_counts_reshape_like_elem_cnt_and_random_mask():
    x = np.array([[1.0, np.inf, 2.0], [np.nan, -np.inf, 0.0]], np.float32)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Bundle[tp.Numpy]:
        y = flow.amp_white_identity(x)
        return {"count": flow.count_not_finite(x),
                "multi": flow.multi_count_not_finite([x, flow.zeros((4,))]),
                "reshaped": flow.reshape_like(y, flow.zeros((3, 2))),
                "cnt": flow.math.reduced_shape_elem_cnt(x, axis=[1], dtype=flow.float32),
                "mask": flow.nn.random_mask_like(flow.zeros((200, 50)), 0.3)}

    out = job(x)
    assert out["count"].tolist() == [3] and out["count"].dtype == np.int64
    assert out["multi"].tolist() == [3]
    np.testing.assert_array_equal(out["reshaped"], x.reshape(3, 2))
    assert out["cnt"].tolist() == [3.0] and out["cnt"].dtype == np.float32
    assert out["mask"].dtype == np.int8 and 0.65 < out["mask"].mean() < 0.75


def test_fused_scale_tril_and_softmax_dropout():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(2, 4, 4))

    def ref(a):
        t = np.where(np.tril(np.ones((4, 4)), 0) > 0, a * 0.5, -1e4)
        e = np.exp(t - t.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    value, (g,), c = value_and_grads(
        lambda b: flow.nn.fused_scale_tril_softmax_dropout(b, fill_value=-1e4, scale=0.5), x)
    np.testing.assert_allclose(value, ref(x), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(g, numeric_grad(ref, [x], c)[0], rtol=1e-5, atol=1e-8)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 4, 4), dtype=flow.float64)) -> tp.Numpy:
        return flow.math.fused_scale_tril(x, diagonal=1, fill_value=7.0, scale=3.0)

    np.testing.assert_allclose(job(x), np.where(np.tril(np.ones((4, 4)), 1) > 0, 3 * x, 7.0))


def test_random_ops_with_one_seed_draw_one_stream():
    x = np.ones((64, 32), np.float32)
    seen = []

    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((64, 32))) -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        w = flow.get_variable("w", shape=(1,), initializer=flow.zeros_initializer())
        v = x + w
        a = flow.nn.dropout(v, 0.5, seed=7, name="a")
        b = flow.nn.fused_bias_add_dropout(v, flow.zeros((32,)), rate=0.5, seed=7)
        c = flow.nn.dropout(v, 0.5, name="c")
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0]),
                           momentum=0).minimize(flow.math.reduce_sum(a + b + c))
        return a, b, c

    for _ in range(2):
        seen.append(train(x))
    (a1, b1, c1), (a2, _, _) = seen
    np.testing.assert_array_equal(a1, b1)  # one seed, one mask
    assert not np.array_equal(a1, c1)
    assert not np.array_equal(a1, a2)  # a new mask every step
