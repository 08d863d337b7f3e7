"""``flowjob/_src/ops/_dynamic.py``: elem_cnt, dynamic_reshape and cast_to_static_shape on static
and dynamic (``tp.ListNumpy``) blobs, against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from ops_helpers import normal, value_and_grads

import flowjob as flow
import flowjob.typing as tp


def test_elem_cnt_of_static_and_dynamic_blobs():
    @flow.global_function()
    def static(x: tp.Numpy.Placeholder((3, 4))) -> tp.Numpy:
        return flow.elem_cnt(x, dtype=flow.int64)

    @flow.global_function()
    def dynamic(x: tp.ListNumpy.Placeholder((5, 6))) -> tp.ListNumpy:
        return flow.elem_cnt(x + 1.0)

    out = static(np.zeros((3, 4), np.float32))
    assert out.dtype == np.int64 and out.tolist() == [12]
    for shape in [(2, 3), (5, 6), (1, 1)]:
        (n,) = dynamic([np.zeros(shape, np.float32)])
        assert n.dtype == np.int32 and n.tolist() == [int(np.prod(shape))]


def test_dynamic_reshape_of_a_static_blob_is_reshape_with_its_gradient():
    x = normal(4, 6, seed=1).astype(np.float64)
    value, (grad,), cot = value_and_grads(lambda b: flow.dynamic_reshape(b, (-1, 3)) * 2.0, x)
    np.testing.assert_array_equal(value, x.reshape(-1, 3) * 2)
    np.testing.assert_array_equal(grad, (cot * 2).reshape(4, 6))


@pytest.mark.parametrize("real", [(2, 6), (4, 3), (1, 3), (5, 6)])
def test_dynamic_reshape_infers_minus_one_from_the_real_size(real):
    @flow.global_function()
    def job(x: tp.ListNumpy.Placeholder((5, 6))) -> tp.ListNumpy:
        return flow.dynamic_reshape(x * 1.0, (-1, 3))

    x = np.arange(np.prod(real), dtype=np.float32).reshape(real) + 1
    (out,) = job([x])
    np.testing.assert_array_equal(out, x.reshape(-1, 3))


def test_dynamic_reshape_rejects_a_size_that_does_not_fit():
    @flow.global_function()
    def job(x: tp.ListNumpy.Placeholder((6, 6))) -> tp.ListNumpy:
        return flow.dynamic_reshape(x, (-1, 4))

    with pytest.raises(flow.JobArgumentError, match="dynamic_reshape"):
        job([np.ones((1, 3), np.float32)])
    with pytest.raises(flow.OpError, match="cannot reshape"):

        @flow.global_function()
        def bad(x: tp.Numpy.Placeholder((5, 6))) -> tp.Numpy:
            return flow.dynamic_reshape(x, (-1, 7))

        bad(np.ones((5, 6), np.float32))


def test_cast_to_static_shape_pads_the_real_part_with_zeros():
    @flow.global_function()
    def job(x: tp.ListNumpy.Placeholder((3, 4))) -> tp.ListNumpy:
        return flow.cast_to_static_shape(x + 1.0)

    x = normal(2, 3).astype(np.float32)
    (out,) = job([x])
    want = np.zeros((3, 4), np.float32)
    want[:2, :3] = x + 1
    np.testing.assert_allclose(out, want, rtol=1e-6)

    @flow.global_function()
    def static(x: tp.Numpy.Placeholder((3, 4))) -> tp.Numpy:
        return flow.cast_to_static_shape(x)

    y = normal(3, 4).astype(np.float32)
    np.testing.assert_array_equal(static(y), y)


def test_cast_to_static_shape_gives_a_static_blob_that_any_op_takes():
    """As in OneFlow (is_dynamic False): a reshape after it, as Wide&Deep's hybrid embedding
    does after gathering rows that argwhere found."""
    seen = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        rows = flow.gather_nd(x, flow.argwhere(x[:, 0] > 0.0))
        static = flow.cast_to_static_shape(rows * 2.0)
        seen.update(rows=rows.is_dynamic, static=static.is_dynamic)
        return flow.reshape(static, (2, 6))

    x = normal(4, 3).astype(np.float32)
    x[:, 0] = [1.0, -1.0, 2.0, -2.0]
    want = np.zeros((4, 3), np.float32)
    want[:2] = 2 * x[[0, 2]]
    np.testing.assert_allclose(job(x), want.reshape(2, 6), rtol=1e-6)
    assert seen == {"rows": True, "static": False}
