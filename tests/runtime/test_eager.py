"""Eager execution (``flow.enable_eager_execution(True)``): the same jobs eager and lazy give
the same losses, watched values, gradients and variables; plain SGD against jax.grad; values
inside the body; checkpoints across modes; results in every form; OneFlow's mode rules."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob.errors import ConfigError, OpError

pytestmark = pytest.mark.usefixtures("fresh_session")

RNG = np.random.default_rng(7)
X = RNG.standard_normal((8, 4)).astype(np.float32)
Y = RNG.standard_normal((8, 2)).astype(np.float32)
BATCHES = [(X + 0.1 * k, Y - 0.05 * k) for k in range(5)]


def _optimizer(kind: str):
    lr = flow.optimizer.PiecewiseConstantScheduler([], [0.01 if kind == "adam" else 0.02])
    if kind == "adam":
        return flow.optimizer.Adam(lr)
    return flow.optimizer.SGD(lr, momentum=0.9 if kind == "momentum" else 0)


def define_train(kind: str, seen: dict[str, list], dropout: float = 0.0):
    def on_hidden(value: tp.Numpy) -> None:
        seen["h"].append(value)

    def on_hidden_diff(value: tp.Numpy) -> None:
        seen["dh"].append(value)

    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((8, 4)), y: tp.Numpy.Placeholder((8, 2))) -> tp.Numpy:
        w1 = flow.get_variable("w1", (4, 3), initializer=flow.random_normal_initializer())
        b1 = flow.get_variable("b1", (3,), initializer=flow.constant_initializer(0.1))
        w2 = flow.get_variable("w2", (3, 2), initializer=flow.random_normal_initializer())
        if flow.eager_execution_enabled() and "init" not in seen:  # values in the body
            seen["init"] = {"w1": w1.numpy(), "b1": b1.numpy(), "w2": w2.numpy()}
        h = flow.math.tanh(flow.matmul(x, w1) + b1)
        flow.watch(h, on_hidden)
        flow.watch_diff(h, on_hidden_diff)
        if dropout:
            h = flow.nn.dropout(h, rate=dropout)
        loss = flow.math.reduce_sum(flow.math.square(flow.matmul(h, w2) - y))
        _optimizer(kind).minimize(loss)
        return loss

    return train


def run(eager: bool, kind: str, steps: int = 5, dropout: float = 0.0):
    flow.clear_default_session()
    flow.enable_eager_execution(eager)
    seen: dict = {"h": [], "dh": []}
    job = define_train(kind, seen, dropout)
    losses = [job(*BATCHES[k]) for k in range(steps)]
    flow.sync_default_session()
    variables = {name: v.numpy() for name, v in flow.get_all_variables().items()}
    return losses, seen, variables


def assert_same_run(eager_run, lazy_run):
    (el, es, ev), (ll, ls, lv) = eager_run, lazy_run
    np.testing.assert_allclose(np.ravel(el), np.ravel(ll), rtol=1e-5)
    for key in ("h", "dh"):
        assert len(es[key]) == len(ls[key]) == len(el)
        np.testing.assert_allclose(np.stack(es[key]), np.stack(ls[key]), rtol=1e-4, atol=1e-5)
    assert sorted(ev) == sorted(lv)  # optimizer slots and the TrainStep too
    for name in ev:
        np.testing.assert_allclose(ev[name], lv[name], rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("kind", ["sgd", "momentum", "adam"])
def test_eager_and_lazy_train_the_same(kind):
    assert_same_run(run(True, kind), run(False, kind))


def test_dropout_draws_the_same_masks_eager_and_lazy():
    eager, lazy = run(True, "sgd", 3, dropout=0.5), run(False, "sgd", 3, dropout=0.5)
    assert_same_run(eager, lazy)
    assert not np.allclose(eager[0], run(True, "sgd", 3)[0])  # the masks do act


def test_eager_sgd_against_jax_grad():
    losses, seen, variables = run(True, "sgd")

    def loss_fn(params, h_perturb, x, y):
        h = jnp.tanh(x @ params["w1"] + params["b1"]) + h_perturb
        return jnp.sum(jnp.square(h @ params["w2"] - y))

    params = {k: jnp.asarray(v) for k, v in seen["init"].items()}
    for k, (x, y) in enumerate(BATCHES):
        zero = jnp.zeros((8, 3), jnp.float32)
        loss, (grads, dh) = jax.value_and_grad(loss_fn, argnums=(0, 1))(params, zero, x, y)
        np.testing.assert_allclose(np.ravel(losses[k]), [loss], rtol=1e-5)
        np.testing.assert_allclose(seen["dh"][k], dh, rtol=1e-4, atol=1e-6)
        params = {n: params[n] - 0.02 * grads[n] for n in params}
    for name in params:
        np.testing.assert_allclose(variables[name], params[name], rtol=1e-4, atol=1e-6)
    assert variables["System-Train-TrainStep-train"].tolist() == [5]


def test_blobs_have_values_in_the_body(capsys):
    flow.enable_eager_execution(True)
    values = []

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        y = x * 2.0 + 1.0
        print(y)
        values.append((y.numpy(), y.numpy(0), y.numpy_list(), np.asarray(y)))
        return y

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = job(x)
    want = x * 2 + 1
    np.testing.assert_array_equal(out, want)
    assert str(want) in capsys.readouterr().out
    array, first, listed, converted = values[0]
    for got in (array, first, listed[0], converted):
        np.testing.assert_array_equal(got, want)
    job(x + 1)  # the body runs on every call
    np.testing.assert_array_equal(values[1][0], want + 2)


def test_a_lazy_blob_has_no_value():
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        x.numpy()
        return x

    with pytest.raises(TypeError, match="lazy blob.*enable_eager_execution"):
        job(np.zeros(2, np.float32))


def test_results_come_back_in_every_form():
    flow.enable_eager_execution(True)
    x = np.arange(4, dtype=np.float32)
    shapes = []

    @flow.global_function()
    def plain(a: tp.Numpy.Placeholder((4,))):
        return a + 1.0, {"neg": -a}

    @flow.global_function()
    def listed(a: tp.ListNumpy.Placeholder((6,))) -> tp.ListNumpy:
        # consistent view: a dynamic blob of the placeholder's shape, holding 3 values
        shapes.append((a.shape, a.is_dynamic, a.numpy().shape))
        return flow.math.relu(a - 1.0)

    @flow.global_function()
    def called(a: tp.Numpy.Placeholder((4,))) -> tp.Callback[tp.Numpy]:
        return a * 3.0

    first, rest = plain(x).get()
    np.testing.assert_array_equal(first.numpy(), x + 1)
    np.testing.assert_array_equal(rest["neg"].numpy(), -x)
    got = []
    plain(x).async_get(lambda r: got.append(r[0].numpy()))
    called(x)(got.append)
    flow.sync_default_session()
    np.testing.assert_array_equal(got[0], x + 1)
    np.testing.assert_array_equal(got[1], x * 3)
    short = np.array([0.5, 2.0, 3.0], np.float32)
    (result,) = listed([short])
    np.testing.assert_array_equal(result, np.maximum(short - 1, 0))
    assert shapes == [((6,), True, (3,))]


def test_an_error_in_the_body_reaches_the_caller_and_the_next_call_runs():
    flow.enable_eager_execution(True)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        if flow.math.reduce_sum(x).numpy()[0] < 0:
            raise ValueError("negative input")
        return x * 2.0

    with pytest.raises(ValueError, match="negative input"):
        job(-np.ones(2, np.float32))
    np.testing.assert_array_equal(job(np.ones(2, np.float32)), [2, 2])


@pytest.mark.parametrize("first_eager", [True, False])
def test_checkpoints_carry_over_between_modes(first_eager, tmp_path):
    """Train 3 steps in one mode, save, load in the other mode and train 2 more: the same as
    5 steps in one run (Adam: its moments and the TrainStep carry over)."""
    whole = run(first_eager, "adam", 5)
    run(first_eager, "adam", 3)
    flow.checkpoint.save(str(tmp_path / "ckpt"))
    flow.clear_default_session()
    flow.enable_eager_execution(not first_eager)
    seen: dict = {"h": [], "dh": []}
    job = define_train("adam", seen)
    flow.load_variables(flow.checkpoint.get(str(tmp_path / "ckpt")))
    losses = [job(*BATCHES[k]) for k in (3, 4)]
    np.testing.assert_allclose(np.ravel(losses), np.ravel(whole[0][3:]), rtol=1e-5)
    flow.sync_default_session()
    variables = {n: v.numpy() for n, v in flow.get_all_variables().items()}
    for name, value in whole[2].items():
        np.testing.assert_allclose(variables[name], value, rtol=1e-5, atol=1e-6, err_msg=name)


def test_mode_rules_follow_oneflow():
    assert flow.eager_execution_enabled() is False

    @flow.global_function()
    def lazy_job(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return x

    for value in (True, False):  # OneFlow refuses both once a lazy job exists
        with pytest.raises(ConfigError, match="'lazy_job'.*clear_default_session"):
            flow.enable_eager_execution(value)
    flow.clear_default_session()
    flow.enable_eager_execution(True)
    flow.clear_default_session()
    assert flow.eager_execution_enabled() is True  # the mode outlives the session
    calls = []

    @flow.global_function()
    def eager_job(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        calls.append(x.numpy())
        return x + 1.0

    flow.enable_eager_execution(False)  # eager jobs do not fix the mode
    assert flow.eager_execution_enabled() is False
    eager_job(np.ones(2, np.float32))
    eager_job(np.ones(2, np.float32))
    assert len(calls) == 2  # still eager: the mode when it was defined

    @flow.global_function()
    def switcher(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        flow.enable_eager_execution(True)
        return x

    with pytest.raises(ConfigError, match="inside the body of job 'switcher'"):
        switcher(np.ones(2, np.float32))


def test_an_eager_job_from_a_cleared_session_is_refused():
    flow.enable_eager_execution(True)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return x

    flow.clear_default_session()
    with pytest.raises(flow.errors.JobDefinitionError, match="cleared session"):
        job(np.ones(2, np.float32))


def test_shape_errors_name_the_op_in_eager_mode_too():
    flow.enable_eager_execution(True)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        return flow.matmul(x, x)

    with pytest.raises(OpError, match="matmul"):
        job(np.ones((2, 3), np.float32))
