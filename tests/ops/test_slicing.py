"""``flowjob/_src/ops/_slicing.py``: slices, blob indexing, slice_update, reverse and paddings."""

from __future__ import annotations

from typing import Tuple

import numpy as np
import pytest
from ops_helpers import arange, numeric_grad, value_and_grads

import flowjob as flow
import flowjob.typing as tp


@pytest.mark.parametrize(
    "tups",
    [
        [(1, 4, 1)],
        [(None, None, 2), (-3, None, 1)],
        [(4, None, -2), (0, 3, 2)],
    ],
)
def test_slice_update_values_and_gradients(tups):
    rng = np.random.default_rng(2)
    x = rng.normal(size=(5, 4))
    key = tuple(slice(*t) for t in tups)
    u = rng.normal(size=x[key].shape)
    value, (gx, gu), c = value_and_grads(lambda a, b: flow.slice_update(a, b, tups), x, u)
    want = x.copy()
    want[key] = u
    np.testing.assert_array_equal(value, want)
    mask = np.ones_like(x)
    mask[key] = 0
    np.testing.assert_allclose(gx, c * mask)
    np.testing.assert_allclose(gu, c[key])


def test_slice_update_checks_the_update_shape():
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((5,)), u: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return flow.slice_update(x, u, [(1, 4, 1)])

    with pytest.raises(flow.OpError, match=r"slice_update.*update has shape \(2,\).*\(3,\)"):
        job(np.zeros(5, np.float32), np.zeros(2, np.float32))


def test_pad_constants_follow_the_dtype():
    x = np.ones((2, 2), np.float32)
    i = np.ones((2, 2), np.int64)

    @flow.global_function()
    def job(
        x: tp.Numpy.Placeholder((2, 2)), i: tp.Numpy.Placeholder((2, 2), dtype=flow.int64)
    ) -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        return (
            flow.pad(x, [(1, 0), (0, 1)], constant_value=-1e30),
            flow.pad(i, [(0, 1), (0, 0)], constant_value=2**40),
            flow.pad(i, [(0, 1), (0, 0)], constant_value=2.7),
        )

    f, big, trunc = job(x, i)
    np.testing.assert_array_equal(f, np.pad(x, [(1, 0), (0, 1)], constant_values=-1e30))
    np.testing.assert_array_equal(big[2], [2**40, 2**40])
    np.testing.assert_array_equal(trunc[2], [2, 2])  # OneFlow: int(constant_value)

    @flow.global_function()
    def overflow(i: tp.Numpy.Placeholder((2,), dtype=flow.int32)) -> tp.Numpy:
        return flow.pad(i, [(1, 1)], constant_value=2**40)

    with pytest.raises(flow.OpError, match=r"flow.pad.*does not fit the int32"):
        overflow(np.zeros(2, np.int32))


@pytest.mark.parametrize(
    "op,mode",
    [("reflection_pad2d", "reflect"), ("replication_pad2d", "edge"), ("zero_pad2d", "constant")],
)
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
        job(x), np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=7)
    )

    @flow.global_function()
    def bad(x: tp.Numpy.Placeholder((1, 1, 2, 2))) -> tp.Numpy:
        return flow.reflection_pad2d(x, 2)

    with pytest.raises(flow.OpError, match=r"reflection_pad2d.*smaller than"):
        bad(np.zeros((1, 1, 2, 2), np.float32))


def test_slice_begin_size_and_slice_v2():
    x = arange(3, 6, 9)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3, 6, 9))) -> Tuple[(tp.Numpy,) * 4]:
        return (
            flow.slice(x, begin=[None, 1, 2], size=[None, 3, -1]),
            flow.slice(x, begin=[-2, 0, 4], size=[1, None, 8]),
            flow.slice_v2(x, [[None, None, None], [0, 5, 2], [0, 6, 3]]),
            flow.slice_v2(x, [(None, None, -1)]),
        )

    s1, s2, v2, rev = job(x)
    np.testing.assert_array_equal(s1, x[:, 1:4, 2:])
    np.testing.assert_array_equal(s2, x[1:2, :, 4:9])
    np.testing.assert_array_equal(v2, x[:, 0:5:2, 0:6:3])
    np.testing.assert_array_equal(rev, x[::-1])


def test_blob_indexing_like_numpy():
    x = arange(4, 5, 6)
    keys = [
        np.s_[1],
        np.s_[-1, 2:4],
        np.s_[..., 1],
        np.s_[:, None, ::2],
        np.s_[1:3, ..., -2:],
        np.s_[::-1, 0, None],
        np.s_[2, 3, 4],
    ]

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 5, 6))) -> Tuple[(tp.Numpy,) * 7]:
        return tuple(x[k] for k in keys)

    for k, got in zip(keys, job(x)):
        np.testing.assert_array_equal(got, x[k], err_msg=str(k))
