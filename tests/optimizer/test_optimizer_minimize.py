"""``Optimizer.minimize`` records itself and its losses in the job being traced."""

import pytest

from flowjob._src.graph import JobGraph, VariableStore, get_variable, tracing
from flowjob._src.ops.initializers import constant_initializer
from flowjob.errors import JobDefinitionError
from flowjob.optimizer import SGD, PiecewiseConstantScheduler


def sgd():
    return SGD(PiecewiseConstantScheduler([], [0.1]), momentum=0)


def traced(job_type, body):
    graph = JobGraph("job", job_type, config=None)
    with tracing(graph, VariableStore()):
        body()
    return graph


def test_minimize_sets_optimizer_and_losses():
    optimizer = sgd()
    seen = {}

    def body():
        a = get_variable("a", shape=(2,), initializer=constant_initializer(1.0))
        b = get_variable("b", shape=(2,), initializer=constant_initializer(2.0))
        seen["blobs"] = [a, b]
        optimizer.minimize([a, b])

    graph = traced("train", body)
    assert graph.optimizer is optimizer
    assert graph.losses == seen["blobs"]


def test_minimize_single_blob():
    optimizer = sgd()

    def body():
        optimizer.minimize(get_variable("a", shape=(2,), initializer=constant_initializer(0.0)))

    assert len(traced("train", body).losses) == 1


def test_minimize_makes_a_predict_job_train_and_fails_outside_a_job():
    def body():
        sgd().minimize(get_variable("a", shape=(2,), initializer=constant_initializer(0.0)))

    with pytest.warns(FutureWarning, match="declared a predict job"):
        graph = traced("predict", body)
    # trains (OneFlow's SetTrainConf), while ops still read the declared type
    assert graph.is_train and not graph.is_trainable and len(graph.losses) == 1
    with pytest.raises(JobDefinitionError, match="inside the body"):
        sgd().minimize([object()])
