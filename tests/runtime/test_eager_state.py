"""Eager execution, state and shapes: assignments, values loaded before a job runs, the data
pipeline across calls, dynamic and data-dependent blob sizes, and results that are copies
(the same as lazy calls, NumPy or jax.grad give)."""

from __future__ import annotations

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob.errors import OpError

pytestmark = pytest.mark.usefixtures("fresh_session")

RNG = np.random.default_rng(7)


def test_an_eager_predict_job_writes_its_assignments_back():
    flow.enable_eager_execution(True)

    @flow.global_function()
    def bump() -> tp.Numpy:
        v = flow.get_variable("v", (3,), initializer=flow.constant_initializer(1.0))
        flow.assign(v, v * 2.0 + 1.0)
        return v  # the value before this call's assignment, as in a train step

    np.testing.assert_array_equal(bump(), [1, 1, 1])
    np.testing.assert_array_equal(bump(), [3, 3, 3])
    flow.sync_default_session()
    np.testing.assert_array_equal(flow.get_all_variables()["v"].numpy(), [7, 7, 7])


def test_values_loaded_before_an_eager_job_runs_start_its_variables():
    flow.enable_eager_execution(True)
    flow.load_variables({"w": np.full((2,), 5.0, np.float32), "bad": np.zeros(3, np.float32)})

    @flow.global_function()
    def job() -> tp.Numpy:
        return flow.get_variable("w", (2,), initializer=flow.zeros_initializer()) + 1.0

    np.testing.assert_array_equal(job(), [6, 6])

    @flow.global_function()
    def other() -> tp.Numpy:
        return flow.get_variable("bad", (4,), initializer=flow.zeros_initializer())

    with pytest.raises(flow.errors.JobDefinitionError, match="'bad'.*shape \\(4,\\).*\\(3,\\)"):
        other()


def test_an_eager_job_reads_its_data_pipeline_from_the_start_at_each_call(tmp_path):
    """OneFlow v0.4's eager mode runs each op with a new kernel at every call (a stateless
    call), so a reader in an eager body starts over each time."""
    from flowjob.data import write_ofrecord

    ids = np.arange(10, dtype=np.int64)
    write_ofrecord(tmp_path, {"id": ids}, part_num=2, part_name_suffix_length=3)
    flow.enable_eager_execution(True)
    seen = []

    @flow.global_function()
    def read() -> tp.Numpy:
        records = flow.data.ofrecord_reader(
            str(tmp_path), batch_size=4, data_part_num=2, part_name_suffix_length=3
        )
        batch = flow.data.OFRecordRawDecoder(records, "id", shape=(), dtype=flow.int64)
        seen.append(batch.numpy())  # the batch's value in the body
        with pytest.raises(OpError, match="data pipeline"):
            records.numpy()
        assert "value" not in repr(records) and "value=" in repr(batch)
        return batch * 2

    got = [read() for _ in range(3)]
    for k in range(3):
        np.testing.assert_array_equal(seen[k], ids[:4])
        np.testing.assert_array_equal(got[k], 2 * ids[:4])


def test_dynamic_blobs_train_as_in_lazy_mode():
    """Consistent view: ListNumpy arguments of several sizes are dynamic blobs; their padding
    never reaches values, losses or gradients, eager as lazy."""
    shapes = [(5, 3), (2, 4), (6, 2)]  # negative: an unmasked argmax would pick padding
    data = [-np.abs(RNG.standard_normal(s)).astype(np.float32) - 0.1 for s in shapes]

    def session(eager):
        flow.clear_default_session()
        flow.enable_eager_execution(eager)
        sums = []

        @flow.global_function(type="train")
        def job(x: tp.ListNumpy.Placeholder((6, 4))) -> tp.ListNumpy:
            w = flow.get_variable("w", (1,), initializer=flow.constant_initializer(1.5))
            y = x * w
            best = flow.math.argmax(y)  # a masked op: the padding never wins
            if eager:
                sums.append((best.numpy(), y.numpy()))
            loss = flow.math.square(y)  # a dynamic loss: its padding reaches no gradient
            flow.optimizer.SGD(
                flow.optimizer.PiecewiseConstantScheduler([], [0.01]), momentum=0
            ).minimize(loss)
            return y

        outs = [job([d])[0] for d in data]
        flow.sync_default_session()
        return outs, sums, flow.get_all_variables()["w"].numpy()

    eager_outs, sums, eager_w = session(True)
    lazy_outs, _, lazy_w = session(False)
    for d, got, want, (best, y) in zip(data, eager_outs, lazy_outs, sums):
        assert got.shape == want.shape == y.shape == d.shape
        np.testing.assert_allclose(got, want, rtol=1e-5)
        np.testing.assert_array_equal(best, np.argmax(y, axis=1))
    np.testing.assert_allclose(eager_w, lazy_w, rtol=1e-5)


def test_eager_assign_121_is_an_eager_assign():
    from flowjob._src.ops import eager_assign_121

    @flow.global_function()
    def lazy(x: tp.Numpy.Placeholder((2,))) -> None:
        eager_assign_121(flow.get_variable("v", (2,), initializer=flow.zeros_initializer()), x)

    with pytest.raises(OpError, match="eager_assign_121: needs eager mode"):
        lazy(np.ones(2, np.float32))
    flow.clear_default_session()
    flow.enable_eager_execution(True)

    @flow.global_function()
    def write(x: tp.Numpy.Placeholder((2,))) -> None:
        eager_assign_121(flow.get_variable("v", (2,), initializer=flow.zeros_initializer()), x)

    @flow.global_function()
    def read() -> tp.Numpy:
        return flow.get_variable("v", (2,), initializer=flow.zeros_initializer()) + 0.0

    write(np.array([3.0, -1.0], np.float32))
    np.testing.assert_array_equal(read(), [3, -1])


def test_data_dependent_sizes_come_from_the_values_in_eager_mode():
    """flow.argwhere's row count depends on its input's values: an eager call sees the real
    count in the body and returns what a lazy call and NumPy give."""
    x = np.array([[0.0, 2.0, 0.0], [1.0, 0.0, 3.0]], np.float32)
    seen = []

    def session(eager):
        flow.clear_default_session()
        flow.enable_eager_execution(eager)

        @flow.global_function()
        def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.ListNumpy:
            where = flow.argwhere(x)
            if eager:
                seen.append(where.numpy())
            return where

        return job(x)[0]

    eager_out, lazy_out = session(True), session(False)
    np.testing.assert_array_equal(eager_out, np.argwhere(x))
    np.testing.assert_array_equal(lazy_out, np.argwhere(x))
    np.testing.assert_array_equal(seen[0], np.argwhere(x))


def test_eager_results_are_writable_copies_that_leave_variables_alone():
    """Writing into a returned variable's value changes neither the variable nor the next
    result (the host copies an eager call's outputs)."""
    flow.enable_eager_execution(True)

    @flow.global_function()
    def job() -> tp.Numpy:
        return flow.get_variable("v", (3,), initializer=flow.constant_initializer(2.0))

    first = job()
    first[:] = -1.0
    np.testing.assert_array_equal(job(), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(flow.get_all_variables()["v"].numpy(), [2.0, 2.0, 2.0])


def _mirrored() -> flow.FunctionConfig:
    config = flow.FunctionConfig()
    config.default_logical_view(flow.scope.mirrored_view())
    return config


@pytest.mark.parametrize("eager", [False, True])
def test_mirrored_list_arguments_are_padded_blobs_of_the_declared_shape(eager):
    """One device, mirrored view: as in OneFlow (lazy and eager alike), a ListNumpy argument
    is a dynamic blob whose ``shape`` is the declared one; values, results and gradients have
    the real size (NumPy's gather and its gradient as reference)."""
    flow.enable_eager_execution(eager)
    x = RNG.standard_normal((30, 15)).astype(np.float32)
    index = RNG.integers(0, 30, (12, 1)).astype(np.int32)
    seen, diffs = [], []

    @flow.global_function(type="train", function_config=_mirrored())
    def job(
        x: tp.ListNumpy.Placeholder((32, 16)),
        index: tp.ListNumpy.Placeholder((12, 1), dtype=flow.int32),
    ) -> tp.ListNumpy:
        v = flow.get_variable("p", (1,), initializer=flow.zeros_initializer())
        x = x + flow.cast_to_current_logical_view(v)
        y = flow.gather_nd(x, index)
        seen.append(y.shape)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [1e-3])).minimize(y)
        flow.watch_diff(x, diffs.append)
        return y

    (y,) = job([x], [index])
    np.testing.assert_array_equal(y, x[index[:, 0]])
    assert seen == [(12, 16)]
    want = np.zeros_like(x)
    np.add.at(want, index[:, 0], 1.0)
    np.testing.assert_array_equal(diffs[0], want)


@pytest.mark.parametrize("eager", [False, True])
def test_mirrored_list_arguments_that_fit_no_padded_blob_run_at_their_real_shape(eager):
    """An empty dimension, or one larger than declared within the declared element count
    (which OneFlow accepts): the body sees the real shape."""
    flow.enable_eager_execution(eager)
    seen = []

    @flow.global_function(function_config=_mirrored())
    def job(x: tp.ListNumpy.Placeholder((5, 6))) -> tp.ListNumpy:
        seen.append(x.shape)
        return flow.slice_v2(x, [(None, None, None), (1, None, None)])

    wide = RNG.standard_normal((4, 7)).astype(np.float32)
    (got,) = job([wide])
    np.testing.assert_array_equal(got, wide[:, 1:])
    (empty,) = job([np.zeros((0, 6), np.float32)])
    assert empty.shape == (0, 5)
    assert seen[-2:] == [(4, 7), (0, 6)]  # (a lazy job first traced the padded blob)


def test_an_eager_op_may_have_an_attribute_named_key():
    """slice_update's slice is its attribute ``key``, not a random key (eager kernels pass
    a random op's key apart from its attributes)."""
    flow.enable_eager_execution(True)
    x = RNG.standard_normal((4, 5)).astype(np.float32)
    u = RNG.standard_normal((2, 5)).astype(np.float32)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 5)), u: tp.Numpy.Placeholder((2, 5))) -> tp.Numpy:
        return flow.slice_update(x, u, [(1, 3, 1), (None, None, None)])

    want = x.copy()
    want[1:3] = u
    np.testing.assert_array_equal(job(x, u), want)
