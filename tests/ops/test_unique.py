"""``flowjob/_src/ops/_unique.py`` (flow.experimental): unique_with_counts and
indexed_slices_reduce_sum against NumPy, with the values' gradient against jax.grad."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from ops_helpers import value_and_grads

import flowjob as flow
import flowjob.typing as tp


def _first_occurrence(x):
    """NumPy: the distinct values of x in the order they first occur."""
    _, first = np.unique(x, return_index=True)
    return x[np.sort(first)]


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.int64])
def test_unique_with_counts_is_numpys_in_first_occurrence_order(dtype):
    flow_dtype = {np.int32: flow.int32, np.float32: flow.float32, np.int64: flow.int64}[dtype]

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((50,), dtype=flow_dtype)):
        return flow.experimental.unique_with_counts(x, out_idx=flow.int64)

    x = np.random.default_rng(0).integers(-6, 7, 50).astype(dtype)
    y, idx, count, num = (b.numpy() for b in job(x).get())
    distinct = _first_occurrence(x)
    n = len(distinct)
    assert num.tolist() == [n] and idx.dtype == count.dtype == num.dtype == np.int64
    np.testing.assert_array_equal(y[:n], distinct)
    np.testing.assert_array_equal(y[n:], 0)
    np.testing.assert_array_equal(y[idx], x)
    np.testing.assert_array_equal(count[:n], [np.sum(x == v) for v in distinct])
    np.testing.assert_array_equal(count[n:], 0)


def test_indexed_slices_reduce_sum_sums_rows_per_index():
    @flow.global_function()
    def job(
        i: tp.Numpy.Placeholder((4, 5), dtype=flow.int32),
        v: tp.Numpy.Placeholder((4, 5, 3), dtype=flow.float32),
    ):
        return flow.experimental.indexed_slices_reduce_sum(i, v)

    rng = np.random.default_rng(1)
    i = rng.integers(0, 6, (4, 5)).astype(np.int32)
    v = rng.random((4, 5, 3)).astype(np.float32)
    ind, val, num = (b.numpy() for b in job(i, v).get())
    distinct = _first_occurrence(i.reshape(-1))
    n = len(distinct)
    assert num.dtype == np.int64 and num.tolist() == [n]
    assert ind.shape == (20,) and val.shape == (20, 3)
    np.testing.assert_array_equal(ind[:n], distinct)
    want = np.stack([v.reshape(20, 3)[i.reshape(-1) == k].sum(axis=0) for k in distinct])
    np.testing.assert_allclose(val[:n], want, rtol=1e-6)
    np.testing.assert_array_equal(val[n:], 0)


def test_indexed_slices_reduce_sum_gradient_reaches_every_row():
    idx = np.array([3, 1, 3, 0, 1, 3], np.int32)
    values = np.random.default_rng(2).normal(size=(6, 2))
    value, (_, grad), cot = value_and_grads(
        lambda i, v: flow.experimental.indexed_slices_reduce_sum(i, v)[1] * 2.0, idx, values
    )
    order = [3, 1, 0]  # first occurrence
    seg = np.array([order.index(k) for k in idx])

    def ref(v):
        return jnp.zeros((6, 2)).at[seg].add(v) * 2.0

    np.testing.assert_allclose(value, ref(values), rtol=1e-12)
    np.testing.assert_allclose(grad, jax.grad(lambda v: jnp.sum(ref(v) * cot))(values))


def test_square_sum_and_bad_inputs():
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((8, 3))) -> tp.Numpy:
        return flow.experimental.square_sum(x)

    x = np.random.default_rng(3).normal(size=(8, 3)).astype(np.float32)
    out = job(x)
    assert out.shape == (1,)
    np.testing.assert_allclose(out, [np.sum(x.astype(np.float64) ** 2)], rtol=1e-5)
    with pytest.raises(flow.OpError, match="x must be 1-D"):

        @flow.global_function()
        def bad(x: tp.Numpy.Placeholder((2, 3))):
            return flow.experimental.unique_with_counts(x)

        bad(np.ones((2, 3), np.float32))
