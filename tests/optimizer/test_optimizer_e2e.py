"""Optimizers inside real train jobs, against NumPy (1/N scaling and L2 term included)."""

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.graph import apply_op, current_graph
from flowjob._src.ops.initializers import constant_initializer
from flowjob._src.ops.regularizers import l2

X = np.arange(12, dtype=np.float32).reshape(4, 3) / 10


pytestmark = pytest.mark.usefixtures("fresh_session")


def per_element_loss(x):
    w = flow.get_variable(
        "w", shape=(3,), initializer=constant_initializer(1.0), regularizer=l2(0.1)
    )
    return apply_op("multiply", lambda a, b: a * b, [x, w])


def per_element_loss_added(x):
    loss = per_element_loss(x)
    current_graph().add_loss(loss)  # what flow.losses.add_loss records
    return loss


def numpy_adam(steps, lr_of_step):
    w, m, v = np.ones(3), np.zeros(3), np.zeros(3)
    for step in range(steps):
        g = X.sum(0) / X.size + 0.1 * w  # d(sum loss)/dw / N, plus the L2 term
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        w = w - lr_of_step(step) * m / (np.sqrt(v) + 1e-8)
    return w


def test_adam_with_warmup_in_a_train_job():
    @flow.global_function(type="train")
    def train_job(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        loss = per_element_loss(x)
        sched = flow.optimizer.PiecewiseConstantScheduler(
            [], [0.1], warmup=flow.optimizer.warmup.linear(2, 0.5)
        )
        flow.optimizer.Adam(sched).minimize(loss)
        return loss

    for _ in range(3):
        train_job(X)
    got = flow.get_all_variables()["w"].numpy()
    want = numpy_adam(3, lambda s: 0.1 * (0.5 + 0.5 * s / 2) if s < 2 else 0.1)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    assert {"w-m", "w-v"} <= set(flow.get_all_variables())


@pytest.mark.filterwarnings("ignore:func_config.train:FutureWarning")
def test_legacy_model_update_conf_in_a_train_job():
    config = flow.function_config()
    config.train.primary_lr(0.1)
    config.train.model_update_conf({"adam_conf": {}})

    @flow.global_function(type="train", function_config=config)
    def legacy_job(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        return per_element_loss_added(x)

    for _ in range(2):
        legacy_job(X)
    np.testing.assert_allclose(
        flow.get_all_variables()["w"].numpy(), numpy_adam(2, lambda s: 0.1), rtol=1e-5
    )
