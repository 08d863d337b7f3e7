"""Job-level behaviour OneFlow's suite checked (test_get_variable, test_name_scope,
test_inplace, test_model_io, test_function_config, test_global_function_signature,
test_demo): variables shared within and across jobs, namespaced names, training steps
against NumPy SGD, legacy ``flow.train.CheckPoint`` save and reload, nested results."""

from __future__ import annotations

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp

LR = 0.01


def var(name, shape=(2, 3), init=None):
    return flow.get_variable(
        name, shape=shape, dtype=flow.float32, initializer=init or flow.random_uniform_initializer()
    )


def sgd(loss):
    flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [LR]), momentum=0).minimize(
        loss
    )


def test_namespaced_and_shared_variables_are_one_variable():
    @flow.global_function()
    def first() -> tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        with flow.scope.namespace("backbone"):
            with flow.scope.namespace("branch"):
                a = var("var")
            with flow.scope.namespace("branch"):
                b = var("var")  # same full name: the same variable (get_variable reuses)
        return a, b, var("backbone-branch-var")

    @flow.global_function()
    def second() -> tp.Numpy:
        return var("backbone-branch-var")  # shared across jobs by name

    a, b, c = first()
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    np.testing.assert_array_equal(second(), a)
    assert "backbone-branch-var" in flow.get_all_variables()


def test_train_steps_on_variables_match_numpy_sgd_and_predict_jobs_see_them():
    @flow.global_function(type="train")
    def train() -> tp.Numpy:
        w = var("w", (10,), flow.constant_initializer(1.0))
        y = flow.math.relu(flow.reshape(w, (2, 5)))
        loss = flow.math.reduce_mean(y)
        sgd(loss)
        return loss

    @flow.global_function(type="predict")
    def read() -> tp.Numpy:
        return var("w", (10,), flow.constant_initializer(1.0))

    np.testing.assert_array_equal(read(), np.ones(10, np.float32))
    expected = np.ones(10)
    for _ in range(5):
        loss = train()
        np.testing.assert_allclose(loss, np.maximum(expected, 0).mean().reshape(1), rtol=1e-6)
        expected = expected - LR * (expected > 0) / 10  # d mean(relu(w)) / dw
    np.testing.assert_allclose(read(), expected, rtol=1e-6)


# the legacy class warns once that flow.checkpoint replaces it (as OneFlow v0.4 did)
@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_legacy_checkpoint_saves_and_a_new_session_reloads(tmp_path):
    def jobs():
        @flow.global_function(type="train")
        def train() -> tp.Numpy:
            w = var("model_io_var", (2, 2))
            loss = flow.math.reduce_sum(w)
            sgd(loss)
            return loss

        @flow.global_function(type="predict")
        def read() -> tp.Numpy:
            return var("model_io_var", (2, 2))

        return train, read

    train, read = jobs()
    checkpoint = flow.train.CheckPoint()
    start = read()
    for _ in range(10):
        train()
    trained = read()
    np.testing.assert_allclose(trained, start - 10 * LR, rtol=1e-5)
    checkpoint.save(str(tmp_path / "model"))

    flow.clear_default_session()
    train, read = jobs()
    flow.train.CheckPoint().load(str(tmp_path / "model"))
    np.testing.assert_array_equal(read(), trained)


def test_function_config_flags_and_nested_result_signatures():
    config = flow.FunctionConfig()
    config.default_data_type(flow.float)
    config.enable_inplace()
    assert config.function_desc.enable_inplace is True
    x = np.arange(6, dtype=np.float32).reshape(2, 3)

    @flow.global_function(function_config=config)
    def nested(
        a: tp.Numpy.Placeholder((2, 3)),
    ) -> tuple[tp.Numpy, dict[str, tuple[tp.Numpy, list[tp.Numpy]]]]:
        return a + 1, {"inner": (a * 2, [a - 1, flow.math.relu(a - 2)])}

    first, rest = nested(x)
    np.testing.assert_array_equal(first, x + 1)
    doubled, (minus, relu) = rest["inner"]
    np.testing.assert_array_equal(doubled, x * 2)
    np.testing.assert_array_equal(minus, x - 1)
    np.testing.assert_array_equal(relu, np.maximum(x - 2, 0))

    got = []

    @flow.global_function()
    def bundled(a: tp.Numpy.Placeholder((2, 3))) -> tp.Callback[tuple[tp.Numpy, tp.Numpy]]:
        return a, flow.math.square(a)

    bundled(x)(lambda pair: got.append(pair))
    flow.sync_default_session()
    np.testing.assert_array_equal(got[0][1], x * x)
