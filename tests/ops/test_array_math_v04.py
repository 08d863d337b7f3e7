"""flow.diag, math.tril, masked_fill, reverse, range, expand, PixelShuffle, smooth_l1_loss,
fused ops, unsorted segment sums, math.polyval, math.l2_normalize,
count_not_finite and multi_count_not_finite against NumPy; l2_normalize's gradient against
jax.grad."""

from __future__ import annotations

from typing import Tuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from ops_helpers import FixedInit

import flowjob as flow
import flowjob.typing as tp

rng = np.random.default_rng(0)


def _run1(fn, x):
    @flow.global_function()
    def Job(a: tp.Numpy.Placeholder(x.shape, dtype=flow.float32)) -> tp.Numpy:
        return fn(a)

    return Job(x.astype(np.float32))


@pytest.mark.parametrize("k", [0, 2, -1])
def test_diag_of_vector_and_matrix(k):
    v, m = rng.normal(size=(4,)), rng.normal(size=(4, 5))
    np.testing.assert_allclose(_run1(lambda a: flow.diag(a, k), v), np.diag(v, k), rtol=1e-6)
    np.testing.assert_allclose(_run1(lambda a: flow.diag(a, k), m), np.diag(m, k), rtol=1e-6)


def test_tril_with_fill_value():
    x = rng.normal(size=(2, 4, 5)).astype(np.float32)
    ref = np.where(np.tri(4, 5, k=1, dtype=bool), x, -7.0)
    np.testing.assert_array_equal(_run1(lambda a: flow.math.tril(a, 1, fill_value=-7.0), x),
                                  ref)


def test_masked_fill_broadcasts_the_mask():
    x = rng.normal(size=(3, 4)).astype(np.float32)
    mask = (rng.normal(size=(1, 4)) > 0).astype(np.int8)

    @flow.global_function()
    def Job(a: tp.Numpy.Placeholder((3, 4)),
            m: tp.Numpy.Placeholder((1, 4), dtype=flow.int8)) -> tp.Numpy:
        return flow.masked_fill(a, m, 2.5)

    np.testing.assert_array_equal(Job(x, mask), np.where(mask != 0, 2.5, x))


def test_reverse_and_range():
    x = rng.normal(size=(2, 3, 4)).astype(np.float32)
    np.testing.assert_array_equal(_run1(lambda a: flow.reverse(a, [0, -1]), x),
                                  x[::-1, :, ::-1])

    @flow.global_function()
    def Job() -> Tuple[tp.Numpy, tp.Numpy]:
        return flow.range(1, 10, 3, dtype=flow.float64), flow.range(4)

    a, b = Job()
    np.testing.assert_array_equal(a, np.arange(1, 10, 3, dtype=np.float64))
    assert b.dtype == np.int64
    np.testing.assert_array_equal(b, np.arange(4))


def test_range_checks_its_bounds():
    @flow.global_function()
    def Job() -> tp.Numpy:
        return flow.range(5, 2)

    with pytest.raises(flow.OpError, match="flow.range: needs start < limit"):
        Job()


def test_polyval_and_count_not_finite():
    x = rng.normal(size=(6,)).astype(np.float32)
    np.testing.assert_allclose(_run1(lambda a: flow.math.polyval([2.0, -1.0, 0.5], a), x),
                               np.polyval([2.0, -1.0, 0.5], x), rtol=1e-6)
    y = np.array([1.0, np.inf, np.nan, -np.inf, 0.0], np.float32)
    assert _run1(flow.count_not_finite, y).tolist() == [3]
    assert _run1(lambda a: flow.multi_count_not_finite([a, a * 0]), y).tolist() == [6]


def test_l2_normalize_value_and_gradient():
    x0 = rng.normal(size=(3, 4)).astype(np.float32)
    x0[1] = 0.0  # the epsilon floor: zeros stay zeros
    ref = x0 / np.sqrt(np.maximum((x0 ** 2).sum(1, keepdims=True), 1e-12))
    np.testing.assert_allclose(_run1(lambda a: flow.math.l2_normalize(a, axis=1), x0), ref,
                               rtol=1e-6)
    grads = {}

    @flow.global_function(type="train")
    def Train() -> tp.Numpy:
        x = flow.get_variable("x", (3, 4), initializer=FixedInit(x0))
        flow.watch_diff(x, lambda d: grads.setdefault("x", d))
        y = flow.math.l2_normalize(x, axis=0)
        loss = flow.math.reduce_sum(y * flow.constant(1.5, shape=(3, 4)) + y * y * y)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0])).minimize(loss)
        return loss

    Train()
    flow.sync_default_session()

    def f(x):
        y = x / jnp.sqrt(jnp.maximum(jnp.sum(x * x, axis=0, keepdims=True), 1e-12))
        return jnp.sum(1.5 * y + y ** 3)

    np.testing.assert_allclose(grads["x"], jax.grad(f)(x0), rtol=1e-5, atol=1e-6)


def test_expand_and_pixel_shuffle():
    x = rng.normal(size=(3, 1)).astype(np.float32)
    np.testing.assert_array_equal(_run1(lambda a: flow.expand(a, [2, -1, 4]), x),
                                  np.broadcast_to(x, (2, 3, 4)))
    y = rng.normal(size=(2, 12, 3, 4)).astype(np.float32)
    got = _run1(lambda a: flow.nn.PixelShufflev2(a, 2, 3), y)
    ref = np.zeros((2, 2, 6, 12), np.float32)
    for c in range(2):  # out[b, c, h*rh + i, w*rw + j] = in[b, c*rh*rw + i*rw + j, h, w]
        for i in range(2):
            for j in range(3):
                ref[:, c, i::2, j::3] = y[:, c * 6 + i * 3 + j]
    np.testing.assert_array_equal(got, ref)


def test_smooth_l1_and_fused_ops():
    p, t = rng.normal(size=(10,)) * 2, rng.normal(size=(10,))
    d = np.abs(p - t)

    @flow.global_function()
    def Job(a: tp.Numpy.Placeholder((10,)), b: tp.Numpy.Placeholder((10,))) -> tp.Numpy:
        return flow.smooth_l1_loss(a, b, beta=0.5)

    np.testing.assert_allclose(Job(p.astype(np.float32), t.astype(np.float32)),
                               np.where(d < 0.5, d * d, d - 0.25), rtol=1e-5)
    x = rng.normal(size=(4, 4)).astype(np.float32)
    np.testing.assert_allclose(
        _run1(lambda a: flow.math.fused_scale_tril(a, 0, fill_value=9.0, scale=2.0), x),
        np.where(np.tri(4, dtype=bool), 2 * x, 9.0), rtol=1e-6)


def test_unsorted_segment_sums():
    data = rng.normal(size=(2, 6, 3)).astype(np.float32)
    ids = np.array([0, 2, 2, 5, 1, 0], np.int32)  # 5 is out of range and drops
    ref = np.zeros((2, 4, 3), np.float32)
    for j, i in enumerate(ids):
        if i < 4:
            ref[:, i] += data[:, j]
    batch_ids = np.array([[0, 1, 1, 3, 3, 3], [2, 2, 0, 0, 1, 3]], np.int32)
    batch_ref = np.zeros((2, 4, 3), np.float32)
    for b in range(2):
        for j, i in enumerate(batch_ids[b]):
            batch_ref[b, i] += data[b, j]

    @flow.global_function()
    def Job(d: tp.Numpy.Placeholder((2, 6, 3)),
            i: tp.Numpy.Placeholder((6,), dtype=flow.int32),
            bi: tp.Numpy.Placeholder((2, 6), dtype=flow.int32)) -> Tuple[tp.Numpy, tp.Numpy]:
        return (flow.math.unsorted_segment_sum(d, i, 4, axis=1),
                flow.math.unsorted_batch_segment_sum(d, bi, 4))

    got, got_batch = Job(data, ids, batch_ids)
    np.testing.assert_allclose(got, ref, rtol=1e-6)
    np.testing.assert_allclose(got_batch, batch_ref, rtol=1e-6)
