"""``flowjob/_src/ops/_partial_fc.py``: distributed_partial_fc_sample on one device, checked as
OneFlow's test_partial_fc checks it (labels first, distinct samples, mapped labels, rows and
their gradient)."""

import numpy as np

import flowjob as flow
import flowjob.typing as tp


def test_partial_fc_sample_keeps_the_labels_then_random_classes():
    classes, num_sample, batch = 40, 16, 12
    grads = {}

    @flow.global_function(type="train")
    def job(labels: tp.Numpy.Placeholder((batch,), dtype=flow.int32)):
        w = flow.get_variable("w", (classes, 3), initializer=flow.random_uniform_initializer(-1, 1))
        mapped, sampled, rows = flow.distributed_partial_fc_sample(w, labels, num_sample)
        rows = flow.identity(rows)
        flow.watch_diff(rows, lambda g: grads.__setitem__("rows", g))
        flow.watch_diff(w, lambda g: grads.__setitem__("w", g))
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.0]), momentum=0
        ).minimize(flow.math.square(rows))
        return w, mapped, sampled, rows

    labels = np.random.default_rng(0).integers(0, classes, batch).astype(np.int32)
    w, mapped, sampled, rows = (b.numpy() for b in job(labels).get())
    flow.sync_default_session()
    distinct = np.unique(labels)
    assert sampled.dtype == mapped.dtype == np.int32 and sampled.shape == (num_sample,)
    np.testing.assert_array_equal(sampled[: len(distinct)], distinct)
    assert len(np.unique(sampled)) == num_sample and np.all((sampled >= 0) & (sampled < classes))
    np.testing.assert_array_equal(sampled[mapped], labels)
    np.testing.assert_array_equal(rows, w[sampled])
    want = np.zeros_like(w)
    want[sampled] = grads["rows"]
    np.testing.assert_allclose(grads["w"], want)
    np.testing.assert_allclose(grads["rows"], 2 * rows, rtol=1e-6)
