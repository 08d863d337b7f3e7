"""``flowjob/_src/ops/_data_dependent.py``: argwhere, nonzero and sync_dynamic_resize make dynamic
blobs whose real shape depends on the data (worked out in the program), against NumPy."""

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp

_DTYPES = {np.float32: flow.float32, np.int32: flow.int32, np.int8: flow.int8}


def _sparse(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    x = rng.random(shape)
    x[x < 0.6] = 0
    return (x * 10).astype(dtype)


@pytest.mark.parametrize("shape", [(7,), (5, 4), (3, 4, 5)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int8])
def test_argwhere_is_numpys_at_the_real_count(shape, dtype):
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder(shape, dtype=_DTYPES[dtype])) -> tp.ListNumpy:
        return flow.argwhere(x, dtype=flow.int64)

    for seed in range(3):  # one program, a different real size per call
        x = _sparse(shape, dtype, seed)
        (out,) = job(x)
        assert out.dtype == np.int64
        np.testing.assert_array_equal(out, np.argwhere(x))


def test_argwhere_of_all_zeros_is_empty_and_nonzero_transposes_it():
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 6))) -> tuple[tp.ListNumpy, tp.ListNumpy]:
        return flow.argwhere(x), flow.nonzero(x)

    where, nz = job(np.zeros((4, 6), np.float32))
    assert where[0].shape == (0, 2) and nz[0].shape == (2, 0)
    x = _sparse((4, 6), np.float32, 4)
    where, nz = job(x)
    assert where[0].dtype == np.int32
    np.testing.assert_array_equal(where[0], np.argwhere(x))
    np.testing.assert_array_equal(nz[0], np.stack(np.nonzero(x)))


@pytest.mark.parametrize("size", [0, 3, 10])
def test_sync_dynamic_resize_keeps_the_first_size_rows(size):
    @flow.global_function()
    def job(
        x: tp.Numpy.Placeholder((10, 3), dtype=flow.float64),
        n: tp.Numpy.Placeholder((1,), dtype=flow.int64),
    ) -> tp.ListNumpy:
        return flow.sync_dynamic_resize(x, n)

    x = np.random.default_rng(size).random((10, 3))
    (out,) = job(x, np.array([size], np.int64))
    np.testing.assert_array_equal(out, x[:size])


def test_ops_after_a_data_dependent_blob_see_its_real_shape():
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((6, 5))) -> tuple[tp.ListNumpy, tp.ListNumpy, tp.ListNumpy]:
        where = flow.argwhere(x)
        scaled = where * 2 + 1  # elementwise: the real shape follows (a host rule, in the program)
        return scaled, flow.elem_cnt(where), flow.cast_to_static_shape(where)

    x = _sparse((6, 5), np.float32, 9)
    want = np.argwhere(x)
    scaled, count, static = job(x)
    np.testing.assert_array_equal(scaled[0], want * 2 + 1)
    assert count[0].tolist() == [want.size]
    padded = np.zeros((30, 2), np.int32)
    padded[: len(want)] = want
    np.testing.assert_array_equal(static[0], padded)


def test_a_loss_over_gathered_nonzero_rows_trains_on_the_real_rows_only():
    @flow.global_function(type="train")
    def job(x: tp.Numpy.Placeholder((6,))) -> tp.ListNumpy:
        w = flow.get_variable("w", (6,), initializer=flow.ones_initializer())
        where = flow.argwhere(x)  # (count, 1)
        picked = flow.gather_nd(w * 3.0, where)  # dynamic (count,)
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.5]), momentum=0
        ).minimize(picked)
        return where

    x = np.array([0, 2, 0, 5, 1, 0], np.float32)
    (where,) = job(x)
    np.testing.assert_array_equal(where, np.argwhere(x))
    # d(sum picked)/dw = 3 at the 3 picked rows, divided by the loss's 3 real elements
    want = np.ones(6)
    want[x != 0] -= 0.5 * 3 / 3
    w = flow.get_all_variables()["w"].numpy()
    np.testing.assert_allclose(w, want, rtol=1e-6)
    (where,) = job(np.zeros((6,), np.float32))  # an empty loss changes nothing
    assert where.shape == (0, 1)
    np.testing.assert_allclose(flow.get_all_variables()["w"].numpy(), want, rtol=1e-6)


def test_watching_the_gradient_of_a_data_dependent_blob_is_refused_clearly():
    with pytest.raises(flow.JobDefinitionError, match="depends on the data"):

        @flow.global_function(type="train")
        def job(x: tp.Numpy.Placeholder((4,))) -> tp.Numpy:
            w = flow.get_variable("w", (4,), initializer=flow.ones_initializer())
            picked = flow.gather_nd(w * x, flow.argwhere(x))
            flow.watch_diff(picked, lambda g: None)
            flow.losses.add_loss(picked)
            return x

        job(np.ones((4,), np.float32))


def test_resizing_a_dynamic_argument_keeps_its_other_real_dimensions():
    @flow.global_function()
    def job(
        x: tp.ListNumpy.Placeholder((8, 5)), n: tp.Numpy.Placeholder((1,), dtype=flow.int32)
    ) -> tp.ListNumpy:
        return flow.sync_dynamic_resize(x * 2.0, n) + 1.0

    x = np.random.default_rng(5).random((6, 3)).astype(np.float32)
    (out,) = job([x], np.array([4], np.int32))
    np.testing.assert_allclose(out, x[:4] * 2 + 1, rtol=1e-6)
    (out,) = job([x], np.array([7], np.int32))  # more rows than the argument has: all of it
    np.testing.assert_allclose(out, x * 2 + 1, rtol=1e-6)


def test_argwhere_of_a_dynamic_argument_sees_only_its_real_part():
    @flow.global_function()
    def job(x: tp.ListNumpy.Placeholder((5, 6))) -> tp.ListNumpy:
        return flow.argwhere(x + 1.0)  # every real element is non-zero, the padding is too

    for shape in [(2, 3), (5, 6), (4, 1)]:
        x = np.zeros(shape, np.float32)
        (out,) = job([x])
        np.testing.assert_array_equal(out, np.argwhere(x + 1))


def test_where_without_x_and_y_is_argwhere():
    @flow.global_function()
    def job(c: tp.Numpy.Placeholder((3, 4), dtype=flow.int32)) -> tp.ListNumpy:
        return flow.where(c)

    c = np.array([[0, 1, 0, 2], [0, 0, 0, 0], [3, 0, 0, 1]], np.int32)
    (out,) = job(c)
    np.testing.assert_array_equal(out, np.argwhere(c))
    with pytest.raises(flow.OpError, match="or neither"):

        @flow.global_function()
        def bad(c: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
            return flow.where(c, c)

        bad(np.ones((3,), np.float32))
