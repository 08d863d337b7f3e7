"""flow.summary.watch_model read back with TensorBoard's reader, against NumPy histograms of
the variables and jax.grad's gradients of the same loss computed independently."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from tensorboard.backend.event_processing import event_accumulator
from tensorboard.util import tensor_util

import flowjob as flow
import flowjob.typing as tp

BATCH, IN, HIDDEN, OUT, BINS, EVERY, LR = 16, 5, 7, 3, 12, 3, 0.05


def _read(logdir):
    acc = event_accumulator.EventAccumulator(
        str(logdir), size_guidance={"tensors": 0, "scalars": 0}
    )
    acc.Reload()
    return acc


def _mlp(x, w1, b1, w2, b2, y):
    h = jnp.maximum(x @ w1 + b1, 0.0)
    return jnp.mean((h @ w2 + b2 - y) ** 2)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("watch") / "logs"
    flow.clear_default_session()

    @flow.global_function(type="train")
    def train(
        x: tp.Numpy.Placeholder((BATCH, IN)), y: tp.Numpy.Placeholder((BATCH, OUT))
    ) -> tp.Numpy:
        flow.summary.create_summary_writer(str(logdir))
        init = flow.random_normal_initializer(stddev=0.5)
        w1 = flow.get_variable("w1", (IN, HIDDEN), initializer=init)
        b1 = flow.get_variable("b1", (HIDDEN,), initializer=flow.constant_initializer(0.1))
        w2 = flow.get_variable("w2", (HIDDEN, OUT), initializer=init)
        b2 = flow.get_variable("b2", (OUT,), initializer=flow.zeros_initializer())
        h = flow.math.relu(flow.matmul(x, w1) + b1)
        loss = flow.math.reduce_mean(flow.math.square(flow.matmul(h, w2) + b2 - y))
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [LR]), momentum=0
        ).minimize(loss)
        flow.summary.watch_model(every_n_steps=EVERY, bins=BINS)
        return loss

    rng = np.random.default_rng(0)
    names = ("w1", "b1", "w2", "b2")
    expected = {}  # step -> (values, gradients, updated values), all NumPy
    for step in range(2 * EVERY + 1):
        x = rng.normal(size=(BATCH, IN)).astype(np.float32)
        y = rng.normal(size=(BATCH, OUT)).astype(np.float32)
        before = {n: flow.get_all_variables()[n].numpy().copy() for n in names}
        grads = jax.grad(_mlp, argnums=(1, 2, 3, 4))(x, *(before[n] for n in names), y)
        train(x, y)
        after = {n: flow.get_all_variables()[n].numpy().copy() for n in names}
        expected[step] = (before, dict(zip(names, map(np.asarray, grads))), after)
    flow.sync_default_session()
    from flowjob._src.summary._ops import close_default_writer

    close_default_writer()
    yield _read(logdir), expected
    flow.clear_default_session()


def _check_histogram(acc, tag, step, values):
    event = next(e for e in acc.Tensors(tag) if e.step == step)
    buckets = tensor_util.make_ndarray(event.tensor_proto)
    values = values.reshape(-1).astype(np.float64)
    lo, hi = values.min(), values.max()
    np.testing.assert_allclose(buckets[0, 0], lo, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(buckets[-1, 1], hi, rtol=1e-6, atol=1e-7)
    if lo == hi:  # all equal: zero-width buckets at the value, the count in the last
        np.testing.assert_allclose(buckets[:, :2], lo, rtol=1e-6)
        assert buckets[:, 2].tolist() == [0] * (BINS - 1) + [values.size]
        return
    counts, edges = np.histogram(values, bins=BINS, range=(lo, hi))
    np.testing.assert_allclose(buckets[:, 0], edges[:-1], rtol=1e-5, atol=1e-6)
    assert buckets[:, 2].sum() == values.size
    # float32 on the device may put a value lying on a bucket edge into its neighbour
    width = (hi - lo) / BINS
    near_edge = np.abs((values - lo) / width - np.round((values - lo) / width)) < 1e-4
    assert np.abs(buckets[:, 2] - counts).sum() <= 2 * near_edge.sum(), (tag, step)


def test_histograms_norms_and_ratio_match_numpy_and_jax_grad(run):
    acc, expected = run
    steps = sorted(s for s in expected if s % EVERY == 0)
    assert steps == [0, EVERY, 2 * EVERY]
    for name in ("w1", "b1", "w2", "b2"):
        for tag in ("value", "grad"):
            assert [e.step for e in acc.Tensors(f"~model/{name}/{tag}")] == steps
        for step in steps:
            before, grads, after = expected[step]
            _check_histogram(acc, f"~model/{name}/value", step, before[name])
            _check_histogram(acc, f"~model/{name}/grad", step, grads[name])
            scalars = {
                t: next(
                    (e.value for e in acc.Scalars(f"~model/{name}/{t}") if e.step == step), None
                )
                for t in ("value_norm", "grad_norm", "update_ratio")
            }
            np.testing.assert_allclose(scalars["value_norm"], np.linalg.norm(before[name]), 1e-5)
            np.testing.assert_allclose(scalars["grad_norm"], np.linalg.norm(grads[name]), 1e-4)
            if not before[name].any():  # all zeros (b2 at step 0): no ratio is logged
                assert scalars["update_ratio"] is None
            else:
                ratio = np.linalg.norm(after[name] - before[name]) / np.linalg.norm(before[name])
                np.testing.assert_allclose(scalars["update_ratio"], ratio, 1e-4)
            # plain SGD: the update is -lr * gradient
            np.testing.assert_allclose(after[name] - before[name], -LR * grads[name], 1e-4, 1e-6)
    assert [e.step for e in acc.Scalars("~model/b2/value_norm")] == steps
    lrs = acc.Scalars("~model/learning_rate")
    assert [e.step for e in lrs] == steps
    np.testing.assert_allclose([e.value for e in lrs], LR, rtol=1e-6)
    assert "~model/loss_scale" not in acc.Tags()["scalars"]  # no loss scaling in this job


def test_watch_model_outside_a_job_or_twice_is_a_clear_error():
    with pytest.raises(Exception, match="watch_model: call it in the body"):
        flow.summary.watch_model()
    with pytest.raises(Exception, match="every_n_steps must be an int >= 1"):

        @flow.global_function(type="train")
        def bad(x: tp.Numpy.Placeholder((2, 2))) -> tp.Numpy:
            flow.summary.watch_model(every_n_steps=0)
            return x

        bad(np.ones((2, 2), np.float32))
    flow.clear_default_session()


@pytest.mark.parametrize(
    "case", ["finite", "constant", "nan", "posinf", "neginf", "all_nonfinite", "half_nonfinite"]
)
@pytest.mark.parametrize("shape", [(37, 11), (100, 50)], ids=["small", "large"])
def test_device_histogram_matches_numpy_with_and_without_nonfinite(case, shape):
    """Both ways of the device histogram (every element finite, or NaN/Inf masked out; a
    small tensor always masks, a large one chooses) against NumPy's count of the finite
    elements by the bucket rule, and the NaN/Inf tally."""
    from flowjob._src.summary._watch_model import _SMALL, _device_histogram, _squares

    assert (shape[0] * shape[1] <= _SMALL) == (shape == (37, 11))
    rng = np.random.default_rng(7)
    x = rng.normal(size=shape).astype(np.float32)
    if case == "constant":
        x[:] = 1.5
    elif case == "nan":
        x[3, 4] = x[20, 1] = np.nan
    elif case == "posinf":
        x[0, 0] = np.inf
    elif case == "neginf":
        x[36, 10] = -np.inf
    elif case == "all_nonfinite":
        x[:] = np.nan
        x[0, :3] = np.inf
    elif case == "half_nonfinite":
        x[::2] = np.nan
        x[1, 1], x[3, 3] = np.inf, -np.inf
    bins = 9
    mn, mx, counts, nonfinite = (
        np.asarray(v) for v in jax.jit(lambda a: _device_histogram(a, bins, _squares(a)))(x)
    )
    flat = x.reshape(-1)
    finite = flat[np.isfinite(flat)]
    expected_nonfinite = [np.isnan(flat).sum(), (flat == np.inf).sum(), (flat == -np.inf).sum()]
    assert nonfinite.tolist() == expected_nonfinite
    if not finite.size:
        assert counts.tolist() == [0] * bins
        return
    assert float(mn) == finite.min() and float(mx) == finite.max()
    assert counts.sum() == finite.size
    if finite.min() == finite.max():
        assert counts.tolist() == [0] * (bins - 1) + [finite.size]
        return
    scaled = (finite - np.float32(mn)) * np.float32(bins / (np.float32(mx) - np.float32(mn)))
    index = np.clip(np.floor(scaled), 0, bins - 1).astype(int)
    want = np.bincount(index, minlength=bins)
    # float32 rounding may move a value lying on a bucket edge into its neighbour
    assert np.abs(counts - want).sum() <= 2 * np.sum(np.abs(scaled - np.round(scaled)) < 1e-4)
