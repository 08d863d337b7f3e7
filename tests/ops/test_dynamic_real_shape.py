"""Ops on dynamic (consistent-view ``tp.ListNumpy``) blobs give results at the real size.

Inputs are smaller than their placeholders, so the program holds them padded; values are
chosen so that padding that leaked into a result would change it (all real values negative
where padding would win a maximum, equal-key ties, index rows that would hit element 0).
"""

from __future__ import annotations

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp

rng = np.random.default_rng(0)


def negative(*shape):
    return (rng.standard_normal(shape) - 10).astype(np.float32)


def test_argmax_over_last_axis_keeps_real_leading_sizes_and_ignores_padding():
    @flow.global_function()
    def ArgMax(x: tp.ListNumpy.Placeholder((6, 8))) -> tp.ListNumpy:
        return flow.math.argmax(x + 1.0)  # padding after an op is no longer zero

    for shape in [(3, 5), (6, 8), (1, 1)]:
        x = negative(*shape)
        (out,) = ArgMax([x])
        np.testing.assert_array_equal(out, np.argmax(x, -1))


def test_argmax_of_a_vector_is_shape_1():
    @flow.global_function()
    def ArgMax(x: tp.ListNumpy.Placeholder((10,))) -> tp.ListNumpy:
        return flow.math.argmax(x)

    x = negative(4)
    np.testing.assert_array_equal(ArgMax([x])[0], [np.argmax(x)])


@pytest.mark.parametrize("direction", ["ASCENDING", "DESCENDING"])
def test_sort_and_argsort_put_padding_out_of_the_real_part(direction):
    @flow.global_function()
    def Sort(
        x: tp.ListNumpy.Placeholder((4, 9), dtype=flow.int32),
    ) -> tuple[tp.ListNumpy, tp.ListNumpy]:
        return flow.sort(x, direction=direction), flow.argsort(x, direction=direction)

    # Values on both sides of the zero padding, with ties.
    x = rng.integers(-3, 4, (3, 6)).astype(np.int32)
    values, order = Sort([x])
    key = -x.astype(np.int64) if direction == "DESCENDING" else x
    want_order = np.argsort(key, -1, kind="stable")
    np.testing.assert_array_equal(order[0], want_order)
    np.testing.assert_array_equal(values[0], np.take_along_axis(x, want_order, -1))


@pytest.mark.parametrize("sorted_", [True, False])
def test_top_k_takes_at_most_the_real_row_and_ignores_padding(sorted_):
    @flow.global_function()
    def TopK(x: tp.ListNumpy.Placeholder((5, 8))) -> tp.ListNumpy:
        return flow.math.top_k(x, k=3, sorted=sorted_)

    for shape in [(4, 6), (2, 2)]:
        x = negative(*shape)
        want = np.argsort(-x, -1, kind="stable")[:, :3]
        np.testing.assert_array_equal(TopK([x])[0], want if sorted_ else np.sort(want, -1))


def test_in_top_k_ignores_padded_classes():
    @flow.global_function()
    def InTopK(
        t: tp.ListNumpy.Placeholder((8,), dtype=flow.int32), p: tp.ListNumpy.Placeholder((8, 10))
    ) -> tp.ListNumpy:
        return flow.math.in_top_k(t, p, k=2)

    p = negative(5, 6)  # padded classes (0.0) would beat every real one
    t = rng.integers(0, 6, 5).astype(np.int32)
    top2 = np.argsort(-p, -1)[:, :2]
    want = np.array([t[i] in top2[i] for i in range(5)], np.int8)
    np.testing.assert_array_equal(InTopK([t], [p])[0], want)


def test_concat_of_dynamic_blobs_has_the_sum_of_real_sizes():
    @flow.global_function()
    def Concat(
        x: tp.ListNumpy.Placeholder((5, 3)),
        y: tp.ListNumpy.Placeholder((4, 3)),
        z: tp.Numpy.Placeholder((2, 3)),
    ) -> tp.ListNumpy:
        return flow.concat([x, y * 2.0, z], axis=0)

    z = negative(2, 3)
    for nx, ny in [(2, 3), (5, 4), (0, 1)]:
        x, y = negative(nx, 3), negative(ny, 3)
        np.testing.assert_array_equal(Concat([x], [y], z)[0], np.concatenate([x, y * 2, z]))


def test_concat_along_a_later_axis_and_its_gradient():
    @flow.global_function(type="train")
    def Concat(x: tp.ListNumpy.Placeholder((3, 4))) -> tp.ListNumpy:
        w = flow.get_variable("w", shape=(3, 2), initializer=flow.ones_initializer())
        out = flow.concat([x, w], axis=1)
        flow.watch_diff(w, lambda d: grads.append(d))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0])).minimize(out)
        return out

    grads: list = []
    x = negative(3, 2)
    out = Concat([x])[0]
    flow.sync_default_session()
    np.testing.assert_array_equal(out, np.concatenate([x, np.ones((3, 2), np.float32)], 1))
    np.testing.assert_array_equal(grads[0], np.ones((3, 2)))


def test_concat_max_dim_size_bounds_the_padded_size_of_dynamic_inputs():
    @flow.global_function()
    def Concat(
        x: tp.ListNumpy.Placeholder((4, 2)), y: tp.ListNumpy.Placeholder((4, 2))
    ) -> tp.ListNumpy:
        out = flow.concat([x, y], axis=0, max_dim_size=5, name="bounded")
        assert out.shape == (5, 2)  # as OneFlow's dynamic concat
        return out

    x, y = negative(3, 2), negative(2, 2)
    np.testing.assert_array_equal(Concat([x], [y])[0], np.concatenate([x, y]))
    with pytest.raises(flow.JobArgumentError, match="add up to 6, more than max_dim_size 5"):
        Concat([x], [negative(3, 2)])


def test_concat_with_disagreeing_real_sizes_is_a_clear_error():
    @flow.global_function()
    def Concat(
        x: tp.ListNumpy.Placeholder((5, 3)), y: tp.ListNumpy.Placeholder((4, 3))
    ) -> tp.ListNumpy:
        return flow.concat([x, y], axis=0, name="joined")

    with pytest.raises(flow.JobArgumentError, match=r"'joined' \(concat\).*real shape \(1, 2\)"):
        Concat([negative(2, 3)], [negative(1, 2)])


@pytest.mark.parametrize(
    "tups",
    [
        [(1, None, 1), (None, None, 2)],
        [(-3, None, 1), (None, -1, 1)],
        [(None, None, -1), (-2, None, -2)],
        [(2, 6, 1), (0, 8, 3)],
    ],
)
def test_slice_v2_counts_from_and_clamps_to_real_sizes(tups):
    @flow.global_function()
    def Slice(x: tp.ListNumpy.Placeholder((7, 9))) -> tp.ListNumpy:
        return flow.slice_v2(x, tups)

    for shape in [(5, 6), (7, 9), (2, 3)]:
        x = negative(*shape)
        want = x[tuple(slice(*t) for t in tups)]
        np.testing.assert_array_equal(Slice([x])[0], want)


def test_gather_nd_with_dynamic_indices():
    @flow.global_function()
    def Gather(
        x: tp.Numpy.Placeholder((4, 5, 3)), i: tp.ListNumpy.Placeholder((6, 2), dtype=flow.int32)
    ) -> tp.ListNumpy:
        return flow.gather_nd(x, i)

    x = negative(4, 5, 3)
    i = np.stack([rng.integers(0, 4, 3), rng.integers(0, 5, 3)], 1).astype(np.int32)
    np.testing.assert_array_equal(Gather(x, [i])[0], x[i[:, 0], i[:, 1]])


def test_gather_nd_of_dynamic_params_and_narrow_indices_is_an_error():
    @flow.global_function()
    def Gather(
        x: tp.ListNumpy.Placeholder((4, 5)), i: tp.ListNumpy.Placeholder((6, 2), dtype=flow.int32)
    ) -> tp.ListNumpy:
        return flow.gather_nd(x, i)

    x = negative(3, 4)
    i = np.array([[2, 3], [0, 1]], np.int32)
    np.testing.assert_array_equal(Gather([x], [i])[0], x[i[:, 0], i[:, 1]])
    with pytest.raises(flow.JobArgumentError, match="real width 1, not the declared 2"):
        Gather([x], [i[:, :1]])


def test_scatter_nd_with_dynamic_indices_adds_nothing_for_padded_rows():
    @flow.global_function()
    def Scatter(
        i: tp.ListNumpy.Placeholder((6, 1), dtype=flow.int32), u: tp.ListNumpy.Placeholder((6, 3))
    ) -> tp.ListNumpy:
        return flow.scatter_nd(i, u + 1.0, shape=(5, 3))

    i = np.array([[4], [1], [4]], np.int32)  # padded rows would add into row 0
    u = negative(3, 3)
    want = np.zeros((5, 3), np.float32)
    np.add.at(want, i[:, 0], u + 1)
    np.testing.assert_allclose(Scatter([i], [u])[0], want, rtol=1e-6)
    with pytest.raises(flow.JobArgumentError, match="updates have real shape"):
        Scatter([i], [u[:2]])


@pytest.mark.parametrize("add", [False, True])
def test_tensor_scatter_nd_with_dynamic_params_and_indices_writes_only_real_rows(add):
    """OneFlow's hybrid embedding (Wide&Deep): rows of a dynamic table replaced (or added to)
    at the rows argwhere found; padded index rows, which would hit row 0, write nothing."""
    op = flow.tensor_scatter_nd_add if add else flow.tensor_scatter_nd_update

    @flow.global_function()
    def Scatter(
        p: tp.ListNumpy.Placeholder((6, 3)),
        i: tp.ListNumpy.Placeholder((6, 1), dtype=flow.int32),
        u: tp.ListNumpy.Placeholder((6, 3)),
    ) -> tp.ListNumpy:
        return op(p * 1.0, i, u + 1.0)

    p = negative(5, 3)
    i = np.array([[4], [1], [3]], np.int32)
    u = negative(3, 3)
    want = p.copy()
    if add:
        np.add.at(want, i[:, 0], u + 1)
    else:
        want[i[:, 0]] = u + 1
    np.testing.assert_allclose(Scatter([p], [i], [u])[0], want, rtol=1e-6)
    with pytest.raises(flow.JobArgumentError, match="updates have real shape"):
        Scatter([p], [i], [u[:2]])


def test_broadcast_to_compatible_with_broadcasts_real_shapes():
    @flow.global_function()
    def Broadcast(
        x: tp.ListNumpy.Placeholder((4, 1)), y: tp.ListNumpy.Placeholder((4, 5))
    ) -> tp.ListNumpy:
        return flow.broadcast_to_compatible_with(x, [y])

    @flow.global_function()
    def Padded(
        x: tp.ListNumpy.Placeholder((4, 5)), y: tp.ListNumpy.Placeholder((4, 5))
    ) -> tp.ListNumpy:
        return flow.broadcast_to_compatible_with(x + 1.0, [y])

    x, y = negative(3, 1), negative(3, 2)
    np.testing.assert_array_equal(Broadcast([x], [y])[0], np.broadcast_to(x, (3, 2)))
    # A real size 1 in a padded axis broadcasts its element, not the padding beside it.
    x = negative(1, 5)
    np.testing.assert_array_equal(Padded([x], [negative(3, 5)])[0], np.broadcast_to(x + 1, (3, 5)))
    with pytest.raises(flow.JobArgumentError, match="do not broadcast"):
        Padded([negative(2, 5)], [negative(3, 5)])


def test_identity_n_keeps_each_real_shape_and_elementwise_inputs_must_agree():
    @flow.global_function()
    def Ident(
        x: tp.ListNumpy.Placeholder((4,)), y: tp.ListNumpy.Placeholder((6,))
    ) -> tuple[tp.ListNumpy, tp.ListNumpy]:
        a, b = flow.identity_n([x, y])
        return a, b

    x, y = negative(2), negative(5)
    a, b = Ident([x], [y])
    np.testing.assert_array_equal(a[0], x)
    np.testing.assert_array_equal(b[0], y)

    @flow.global_function()
    def Add(x: tp.ListNumpy.Placeholder((4,)), y: tp.ListNumpy.Placeholder((4,))) -> tp.ListNumpy:
        return flow.math.add(x, y, name="sum")

    np.testing.assert_array_equal(Add([x], [x])[0], 2 * x)
    with pytest.raises(flow.JobArgumentError, match="'sum'.*different real shapes"):
        Add([x], [negative(3)])


def test_padding_of_a_dynamic_loss_reaches_no_gradient():
    @flow.global_function(type="train")
    def Train(x: tp.ListNumpy.Placeholder((6, 2))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(2,), initializer=flow.ones_initializer())
        loss = (x + 1.0) * w  # padded rows would add 1 each to w's gradient
        flow.watch_diff(loss, lambda d: diffs.append(d))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [1.0])).minimize(loss)
        return w

    diffs: list = []
    x = negative(2, 2)
    Train([x])
    w = Train([x])
    flow.sync_default_session()
    np.testing.assert_array_equal(diffs[0], np.ones((2, 2)))  # at the real shape
    # One SGD step on mean(loss) over the loss's real elements, as with a fixed (2, 2) input.
    np.testing.assert_allclose(w, 1 - (x + 1).sum(0) / x.size, rtol=1e-5)
