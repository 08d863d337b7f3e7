"""Mirrored view on one device: a ListNumpy argument smaller than its placeholder is used at
its real shape (OneFlow's dynamic blob): results, reductions and gradients see only real data,
through padded dynamic blobs when the body's ops take them, else through per-shape variants."""

from typing import Tuple

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp


def _mirrored() -> flow.FunctionConfig:
    config = flow.FunctionConfig()
    config.default_logical_view(flow.scope.mirrored_view())
    return config


def test_ops_see_the_real_shape_not_the_padding():
    flow.clear_default_session()

    @flow.global_function(function_config=_mirrored())
    def Job(x: tp.ListNumpy.Placeholder((6, 8))) -> Tuple[tp.ListNumpy, tp.ListNumpy]:
        # Padding zeros would win argmax for all-negative rows and change the mean.
        return flow.math.argmax(x, -1), flow.math.reduce_mean(x, axis=1)

    x = -np.random.default_rng(0).uniform(1, 2, size=(3, 5)).astype(np.float32)
    (idx,), (mean,) = Job([x])
    np.testing.assert_array_equal(idx, np.argmax(x, -1))
    np.testing.assert_allclose(mean, x.mean(axis=1), rtol=1e-6)
    # Another real shape gets its own compiled variant; the full shape uses the job itself.
    (idx2,), _ = Job([x[:2, :3]])
    np.testing.assert_array_equal(idx2, np.argmax(x[:2, :3], -1))
    full = -np.ones((6, 8), np.float32)
    full[1, 4] = 0.0
    (idx3,), _ = Job([full])
    assert idx3.shape == (6,) and idx3[1] == 4


def test_gradients_and_variables_are_shared_with_the_variant():
    flow.clear_default_session()
    seen = {}

    @flow.global_function(type="train", function_config=_mirrored())
    def Train(x: tp.ListNumpy.Placeholder((4, 3))) -> tp.ListNumpy:
        w = flow.get_variable("w", (3,), initializer=flow.ones_initializer())
        y = x * w
        flow.watch_diff(y, lambda d: seen.setdefault("dy", d.numpy_list()[0]))
        loss = flow.math.reduce_sum(y)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1])).minimize(loss)
        return loss

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    Train([x])
    flow.sync_default_session()
    assert seen["dy"].shape == (2, 3)
    # d(sum(x * w))/dw = x.sum(0), scaled by 1/N of the (1,)-shaped loss: one SGD step.
    np.testing.assert_allclose(flow.get_all_variables()["w"].numpy(), 1 - 0.1 * x.sum(0), rtol=1e-6)


def test_top_k_larger_than_the_real_axis_gives_all_of_it():
    flow.clear_default_session()

    @flow.global_function(function_config=_mirrored())
    def Job(x: tp.ListNumpy.Placeholder((2, 50))) -> tp.ListNumpy:
        return flow.math.top_k(x, k=50)  # OneFlow's kernel takes min(k, size)

    x = np.random.default_rng(1).permutation(20).reshape(2, 10).astype(np.float32)
    (idx,) = Job([x])
    np.testing.assert_array_equal(idx, np.argsort(-x, axis=1))


def test_in_top_k_says_0_for_a_row_with_a_non_finite_prediction():
    flow.clear_default_session()

    @flow.global_function()
    def Job(
        t: tp.Numpy.Placeholder((3,), dtype=flow.int32), p: tp.Numpy.Placeholder((3, 4))
    ) -> tp.Numpy:
        return flow.math.in_top_k(t, p, 2)

    preds = np.array([[0.9, 0.1, 0.2, 0.3], [0.9, np.inf, 0.2, 0.3], [np.nan, 1, 0, 0]], np.float32)
    # As OneFlow's kernel and tf.math.in_top_k: any inf/nan in a row makes it 0.
    np.testing.assert_array_equal(Job(np.array([0, 0, 1], np.int32), preds), [1, 0, 0])


def test_a_body_whose_ops_take_dynamic_blobs_runs_padded_once_for_every_size():
    flow.clear_default_session()
    seen = []

    @flow.global_function(type="train", function_config=_mirrored())
    def Job(x: tp.ListNumpy.Placeholder((6, 4))) -> tp.ListNumpy:
        w = flow.get_variable("w", (2, 4), initializer=flow.ones_initializer())
        y = flow.concat([x * 2.0, flow.cast_to_current_logical_view(w)], axis=0)
        seen.append((y.shape, y.is_dynamic))  # OneFlow's static (maximum) shape
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0
        ).minimize(y)
        return y

    rng = np.random.default_rng(1)
    for rows in (3, 6, 1):
        x = rng.normal(size=(rows, 4)).astype(np.float32)
        (y,) = Job([x])
        w = flow.get_all_variables()["w"].numpy()
        # each call's update took 0.1 / (real elements) from w (its gradient is 1 per element)
        np.testing.assert_allclose(y[:rows], x * 2, rtol=1e-6)
        assert y.shape == (rows + 2, 4)
    assert seen == [((8, 4), True)]  # traced once: no per-shape variant
    want = 1 - sum(0.1 / ((r + 2) * 4) for r in (3, 6, 1))
    np.testing.assert_allclose(w, np.full((2, 4), want), rtol=1e-5)


def test_arguments_fit_by_element_count_and_bodies_without_dynamic_ops_use_variants():
    flow.clear_default_session()
    seen = []

    @flow.global_function(function_config=_mirrored())
    def Job(x: tp.ListNumpy.Placeholder((3, 7))) -> tp.ListNumpy:
        seen.append(x.shape)
        return flow.math.reduce_sum(x, axis=0)  # no dynamic rule: traced at real shapes

    x = np.arange(20, dtype=np.float32).reshape(2, 10)  # 20 <= 21 elements, as OneFlow checks
    (out,) = Job([x])
    np.testing.assert_array_equal(out, x.sum(axis=0))
    assert (2, 10) in seen
    with pytest.raises(flow.JobArgumentError, match="Job"):  # 28 elements fit no (3, 7)
        Job([np.ones((4, 7), np.float32)])
