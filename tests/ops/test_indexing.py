"""``flowjob/_src/ops/_indexing.py``: where, gather(_nd), dim_gather, masked_fill and one_hot."""

from __future__ import annotations

from typing import Tuple

import numpy as np
import pytest
from ops_helpers import arange, value_and_grads

import flowjob as flow
import flowjob.typing as tp


def test_gather_out_of_range_indices_give_zeros_like_oneflow():
    params = np.arange(12, dtype=np.float32).reshape(4, 3) + 1
    idx = np.array([3, 4, 0, 100], np.int32)

    @flow.global_function()
    def job(
        p: tp.Numpy.Placeholder((4, 3)), i: tp.Numpy.Placeholder((4,), dtype=flow.int32)
    ) -> Tuple[tp.Numpy, tp.Numpy]:
        return flow.gather(p, i), flow.gather(p, i, axis=1)

    rows, cols = job(params, idx)
    np.testing.assert_array_equal(rows, [params[3], np.zeros(3), params[0], np.zeros(3)])
    expected = np.zeros((4, 4), np.float32)
    expected[:, 2] = params[:, 0]
    np.testing.assert_array_equal(cols, expected)


def test_batch_gather_takes_every_leading_indices_axis_as_batch_and_has_gradients():
    rng = np.random.default_rng(0)
    params = rng.normal(size=(2, 3, 5, 4))
    idx = rng.integers(0, 5, size=(2, 3, 6)).astype(np.int32)
    # OneFlow's batch_gather: batch_dims=1, axis=1, but indices of rank 3 make two batch axes
    value, (g, _), c = value_and_grads(lambda p, i: flow.gather(p, i, batch_dims=1), params, idx)
    want = np.stack([np.stack([params[a, b][idx[a, b]] for b in range(3)]) for a in range(2)])
    np.testing.assert_array_equal(value, want)
    grad = np.zeros_like(params)
    for a in range(2):
        for b in range(3):
            np.add.at(grad[a, b], idx[a, b], c[a, b])
    np.testing.assert_allclose(g, grad, rtol=1e-12)


def test_gather_nd_values_gradient_and_errors():
    rng = np.random.default_rng(1)
    params = rng.normal(size=(3, 4, 2))
    idx = np.array([[[0, 1], [2, 3]], [[1, 0], [2, 3]]], np.int32)  # (2, 2, k=2)
    value, (g, _), c = value_and_grads(flow.gather_nd, params, idx)
    want = params[idx[..., 0], idx[..., 1]]
    assert value.shape == (2, 2, 2)
    np.testing.assert_array_equal(value, want)
    grad = np.zeros_like(params)
    np.add.at(grad, (idx[..., 0], idx[..., 1]), c)
    np.testing.assert_allclose(g, grad, rtol=1e-12)

    @flow.global_function()
    def full(
        p: tp.Numpy.Placeholder((3, 3)), i: tp.Numpy.Placeholder((2, 2), dtype=flow.int32)
    ) -> tp.Numpy:
        return flow.gather_nd(p, i)

    x = np.arange(9, dtype=np.float32).reshape(3, 3) + 1
    np.testing.assert_array_equal(full(x, np.array([[0, 2], [2, 1]], np.int32)), [3.0, 8.0])

    @flow.global_function()
    def bad(
        p: tp.Numpy.Placeholder((3, 3)), i: tp.Numpy.Placeholder((2, 3), dtype=flow.int32)
    ) -> tp.Numpy:
        return flow.gather_nd(p, i)

    with pytest.raises(flow.OpError, match=r"gather_nd.*size 1..2"):
        bad(x, np.zeros((2, 3), np.int32))


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


def test_gather_axis_and_batch_dims():
    params = arange(3, 4, 5)
    idx = np.array([2, 0, 2], np.int32)
    bidx = np.array([[1, 3], [0, 0], [2, 1]], np.int32)

    @flow.global_function()
    def job(
        p: tp.Numpy.Placeholder((3, 4, 5)),
        i: tp.Numpy.Placeholder((3,), dtype=flow.int32),
        bi: tp.Numpy.Placeholder((3, 2), dtype=flow.int32),
    ) -> Tuple[(tp.Numpy,) * 4]:
        return (
            flow.gather(p, i),
            flow.gather(p, i, axis=2),
            flow.gather(p, bi, batch_dims=1),
            flow.gather(p, bi, axis=-1, batch_dims=1),
        )

    g0, g2, batch, batch_last = job(params, idx, bidx)
    np.testing.assert_array_equal(g0, params[idx])
    np.testing.assert_array_equal(g2, params[:, :, idx])
    np.testing.assert_array_equal(batch, np.stack([params[b][bidx[b]] for b in range(3)]))
    np.testing.assert_array_equal(batch_last, np.stack([params[b][:, bidx[b]] for b in range(3)]))


def test_one_hot_cast_pad_broadcast_like():
    idx = np.array([[0, 2], [3, 1]], np.int32)
    x = np.array([[1.7, -2.2, 3.5]], np.float32)

    @flow.global_function()
    def job(
        idx: tp.Numpy.Placeholder((2, 2), dtype=flow.int32), x: tp.Numpy.Placeholder((1, 3))
    ) -> tp.Bundle[tp.Numpy]:
        like = flow.zeros((4, 3))
        return {
            "one_hot": flow.one_hot(idx, depth=4),
            "one_hot_axis0": flow.one_hot(
                idx, depth=3, on_value=5, off_value=-1, axis=0, dtype=flow.int32
            ),
            "cast": flow.cast(x, flow.int32),
            "cast_same_is_input": flow.cast(x, flow.float32),
            "pad": flow.pad(x, [(1, 0), (2, 1)], constant_value=9.0),
            "broadcast_like": flow.broadcast_like(x, like, broadcast_axes=[0]),
            "broadcast_dropped": flow.broadcast_like(flow.reshape(x, (3,)), like, [0]),
        }

    got = job(idx, x)
    eye = np.eye(4, dtype=np.float32)
    assert got["one_hot"].dtype == np.float32
    np.testing.assert_array_equal(got["one_hot"], eye[idx])
    want_axis0 = np.where(np.arange(3)[:, None, None] == idx[None], 5, -1)  # index 3: all off
    assert got["one_hot_axis0"].dtype == np.int32
    np.testing.assert_array_equal(got["one_hot_axis0"], want_axis0)
    assert got["cast"].dtype == np.int32
    np.testing.assert_array_equal(got["cast"], x.astype(np.int32))
    np.testing.assert_array_equal(got["cast_same_is_input"], x)
    np.testing.assert_array_equal(got["pad"], np.pad(x, [(1, 0), (2, 1)], constant_values=9))
    np.testing.assert_array_equal(got["broadcast_like"], np.broadcast_to(x, (4, 3)))
    np.testing.assert_array_equal(got["broadcast_dropped"], np.broadcast_to(x, (4, 3)))


def test_where_constants_identity():
    cond = np.array([[3, 0, 1], [0, 0, 1]], np.int32)
    x, y = arange(2, 3), -arange(1, 3)

    @flow.global_function()
    def job(
        c: tp.Numpy.Placeholder((2, 3), dtype=flow.int32),
        x: tp.Numpy.Placeholder((2, 3)),
        y: tp.Numpy.Placeholder((1, 3)),
    ) -> tp.Bundle[tp.Numpy]:
        assert flow.cast(x, flow.float32) is x
        return {
            "where": flow.where(c, x, y),
            "where_const": flow.where(c > 0, x, 0.5),
            "constant": flow.constant(2.5, dtype=flow.float32, shape=(2, 2)),
            "int_constant": flow.constant(7, dtype=flow.int32, shape=[3]),
            "zeros": flow.zeros((2,)),
            "ones": flow.ones((1, 2), dtype=flow.int8),
            "ones_like": flow.ones_like(x),
            "identity": flow.identity(x),
        }

    got = job(cond, x, y)
    np.testing.assert_array_equal(got["where"], np.where(cond != 0, x, y))
    np.testing.assert_array_equal(got["where_const"], np.where(cond > 0, x, 0.5))
    np.testing.assert_array_equal(got["constant"], np.full((2, 2), 2.5, np.float32))
    assert got["int_constant"].dtype == np.int32 and list(got["int_constant"]) == [7, 7, 7]
    assert got["zeros"].dtype == np.float32 and not got["zeros"].any()
    assert got["ones"].dtype == np.int8 and got["ones"].tolist() == [[1, 1]]
    np.testing.assert_array_equal(got["ones_like"], np.ones_like(x))
    np.testing.assert_array_equal(got["identity"], x)
