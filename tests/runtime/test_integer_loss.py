"""Train jobs that minimize an integer loss, as OneFlow v0.4's tril/masked_fill tests do:
gradients flow along integer paths (OneFlow's integer gradient kernels), into float variables
through casts; forward values stay exactly the integer ops' results."""

from __future__ import annotations

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp

pytestmark = pytest.mark.usefixtures("fresh_session")


def sgd(lr):
    return flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [lr]), momentum=0)


def test_tril_of_an_integer_blob_trains_with_integer_gradients(capsys):
    seen: dict[str, np.ndarray] = {}

    @flow.global_function(type="train")
    def Tril(x: tp.Numpy.Placeholder((3, 4, 5), dtype=flow.int32)) -> tp.Numpy:
        v = flow.get_variable(
            "xv", shape=(1,), dtype=flow.float, initializer=flow.zeros_initializer()
        )
        x = x + flow.cast(v, dtype=flow.int32)
        out = flow.math.tril(x, -1)
        sgd(0.5).minimize(out)
        flow.watch_diff(x, lambda d: seen.__setitem__("x", d))
        flow.watch_diff(out, lambda d: seen.__setitem__("out", d))
        return out

    x = np.random.default_rng(0).integers(0, 100, (3, 4, 5)).astype(np.int32)
    out = Tril(x)
    flow.sync_default_session()
    np.testing.assert_array_equal(out, np.tril(x, -1))
    assert seen["out"].dtype == np.int32 and seen["x"].dtype == np.int32
    np.testing.assert_array_equal(seen["out"], np.ones_like(x))
    np.testing.assert_array_equal(seen["x"], np.tril(np.ones_like(x), -1))
    Tril(x)
    flow.sync_default_session()
    # Two steps; each gives the variable the cast's gradient: the sum of x's gradient over
    # the loss's size.
    v = flow.get_all_variables()["xv"].numpy()
    step = 0.5 * np.tril(np.ones((4, 5)), -1).sum() * 3 / x.size
    np.testing.assert_allclose(v, [-2 * step], rtol=1e-6)
    assert capsys.readouterr().err.count("minimizes the int32 loss") == 1


def test_masked_fill_broadcast_gradient_and_exact_integer_forward():
    seen: dict[str, np.ndarray] = {}

    @flow.global_function(type="train")
    def Fill(
        x: tp.Numpy.Placeholder((4, 1), dtype=flow.int64),
        mask: tp.Numpy.Placeholder((2, 4, 3), dtype=flow.int8),
    ) -> tp.Numpy:
        v = flow.get_variable(
            "v", shape=(1,), dtype=flow.float, initializer=flow.zeros_initializer()
        )
        x = x + flow.cast(v, dtype=flow.int64)
        flow.watch_diff(x, lambda d: seen.__setitem__("x", d))
        out = flow.masked_fill(x, mask, 7) / 3  # integer division truncates
        sgd(0.1).minimize(out)
        return out

    rng = np.random.default_rng(1)
    x = rng.integers(-50, 50, (4, 1)).astype(np.int64)
    mask = rng.integers(0, 2, (2, 4, 3)).astype(np.int8)
    out = Fill(x, mask)
    flow.sync_default_session()
    filled = np.where(mask != 0, 7, np.broadcast_to(x, mask.shape))
    np.testing.assert_array_equal(out, np.trunc(filled / 3).astype(np.int64))
    # d(sum(out))/dx: 1/3 per unmasked element, summed over the broadcast axes, as int64.
    want = np.trunc(np.where(mask != 0, 0, 1 / 3).sum(axis=(0, 2))).astype(np.int64)
    assert seen["x"].dtype == np.int64
    np.testing.assert_array_equal(seen["x"], want.reshape(4, 1))


def test_integer_loss_without_float_path_leaves_variables_alone():
    @flow.global_function(type="train")
    def Count(x: tp.Numpy.Placeholder((5,), dtype=flow.int32)) -> tp.Numpy:
        w = flow.get_variable("w", shape=(5,), initializer=flow.ones_initializer())
        # argmax has no gradient: the integer loss reaches no variable
        loss = flow.math.argmax(flow.reshape(w, (1, 5)) * flow.cast(x, flow.float))
        sgd(1.0).minimize(loss)
        return w

    x = np.arange(5, dtype=np.int32)
    Count(x)
    np.testing.assert_array_equal(Count(x), np.ones(5, np.float32))
