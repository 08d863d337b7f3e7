"""watch / watch_diff (seeds 000-002) against jax.grad references, order, warnings, errors."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.graph import apply_op


class Normal:
    conf = {"random_normal_conf": {"std": 0.1}}

    def __call__(self, key, shape, dtype):
        return 0.1 * jax.random.normal(key, shape, dtype)


def op(name, fn, *xs, **kw):
    return apply_op(name, fn, list(xs), attrs=kw)


def dense(x, units, name):
    w = flow.get_variable(f"{name}-weight", (units, x.shape[1]), initializer=Normal())
    b = flow.get_variable(f"{name}-bias", (units,), initializer=Normal())
    return op("dense", lambda a, w, b: a @ w.T + b, x, w, b)


def sparse_xent(labels, logits):
    def f(lab, lg):
        return -jnp.take_along_axis(jax.nn.log_softmax(lg), lab[:, None], axis=1)[:, 0]

    return op("sparse_softmax_cross_entropy", f, labels, logits)


def conv_relu(x, filters, name):
    w = flow.get_variable(f"{name}-weight", (filters, x.shape[1], 3, 3), initializer=Normal())
    return op(
        "conv",
        lambda a, w: jax.nn.relu(
            jax.lax.conv_general_dilated(
                a, w, (1, 1), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW")
            )
        ),
        x,
        w,
    )


def reference_loss(params, images, labels, conv: bool):
    x = images
    if conv:
        x = jax.nn.relu(
            jax.lax.conv_general_dilated(
                x, params["conv-weight"], (1, 1), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW")
            )
        )
    x = x.reshape(x.shape[0], -1)
    hidden = jax.nn.relu(x @ params["hidden-weight"].T + params["hidden-bias"])
    logits = hidden @ params["output-weight"].T + params["output-bias"]
    per_example = -jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], 1)[:, 0]
    return per_example, hidden, logits


pytestmark = pytest.mark.usefixtures("fresh_session")


def _train_job(conv: bool, seen: dict, batch: int = 8):
    shape = (batch, 2, 6, 6) if conv else (batch, 20)

    @flow.global_function(type="train")
    def train(
        images: tp.Numpy.Placeholder(shape),
        labels: tp.Numpy.Placeholder((batch,), dtype=flow.int32),
    ) -> tp.Numpy:
        x = conv_relu(images, 3, "conv") if conv else images
        x = op("reshape", lambda a: a.reshape(a.shape[0], -1), x)
        hidden = op("relu", jax.nn.relu, dense(x, 16, "hidden"))
        logits = dense(hidden, 5, "output")
        loss = sparse_xent(labels, logits)
        flow.watch(hidden, lambda v: seen.setdefault("hidden", []).append(v))
        flow.watch_diff(logits, lambda g: seen.setdefault("dlogits", []).append(g))
        flow.watch_diff(hidden, lambda g: seen.setdefault("dhidden", []).append(g))
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0
        ).minimize(loss)
        return loss

    return train, shape


@pytest.mark.parametrize("conv", [False, True], ids=["mlp", "conv"])
def test_watch_and_watch_diff_match_jax_grad_and_sgd_matches_reference(conv):
    seen: dict = {}
    train, shape = _train_job(conv, seen)
    rng = np.random.default_rng(1)
    images = rng.normal(size=shape).astype(np.float32)
    labels = rng.integers(0, 5, size=shape[0]).astype(np.int32)
    before = {k: v.numpy() for k, v in flow.get_all_variables().items()}
    params = {k: jnp.asarray(v) for k, v in before.items() if "weight" in k or "bias" in k}

    loss = train(images, labels)
    flow.sync_default_session()

    per_example, hidden, logits = reference_loss(params, images, labels, conv)
    np.testing.assert_allclose(loss, per_example, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(seen["hidden"][0], hidden, rtol=1e-5, atol=1e-6)

    # watch_diff: d(sum of losses)/d(blob), not divided by the batch (spec 4.3)
    def summed(h):
        logp = jax.nn.log_softmax(h @ params["output-weight"].T + params["output-bias"])
        return jnp.sum(-jnp.take_along_axis(logp, labels[:, None], 1))

    np.testing.assert_allclose(seen["dhidden"][0], jax.grad(summed)(hidden), rtol=1e-4, atol=1e-6)
    expected_dlogits = jax.nn.softmax(logits) - jax.nn.one_hot(labels, 5)
    np.testing.assert_allclose(seen["dlogits"][0], expected_dlogits, rtol=1e-4, atol=1e-6)
    # parameters: SGD on the mean loss (gradient of the sum scaled by 1/N)
    grads = jax.grad(lambda p: jnp.mean(reference_loss(p, images, labels, conv)[0]))(params)
    after = {k: v.numpy() for k, v in flow.get_all_variables().items()}
    for name, value in params.items():
        np.testing.assert_allclose(after[name], value - 0.1 * grads[name], rtol=1e-4, atol=1e-6)
    assert after["System-Train-TrainStep-train"].tolist() == [1]


def test_handlers_run_in_call_order_before_blocking_results():
    order = []

    @flow.global_function()
    def Predict(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        y = op("scale", lambda a: a * 3, x)
        flow.watch(y, lambda v: order.append(("watch", float(v[0]))))
        return y

    @flow.global_function()
    def Quiet(x: tp.Numpy.Placeholder((2,))) -> None:
        flow.watch(x, lambda v: order.append(("quiet", float(v[0]))))

    for i in range(300):
        Quiet(np.full(2, i, np.float32))
        if i % 50 == 0:
            out = Predict(np.full(2, i, np.float32))
            # every handler of this and earlier calls ran before the result came back
            assert order[-1] == ("watch", 3.0 * i) and out[0] == 3 * i
    flow.sync_default_session()
    quiet = [v for k, v in order if k == "quiet"]
    assert quiet == [float(i) for i in range(300)]


def test_handler_forms_prompt_and_unannotated(capsys):
    got = []

    def raw(blob):  # no annotation: the result object
        got.append(blob.ndarray().tolist())

    def as_list(v: tp.ListNumpy):
        got.append([a.tolist() for a in v])

    @flow.global_function()
    def Job(x: tp.Numpy.Placeholder((2,))) -> None:
        flow.watch(x, raw)
        flow.watch(x, as_list)
        flow.watch(x, "x is:")
        flow.watch(x)

    Job(np.array([1, 2], np.float32))
    flow.sync_default_session()
    assert got == [[1.0, 2.0], [[1.0, 2.0]]]
    out = capsys.readouterr().out
    assert "x is:\n[1. 2.]\n[1. 2.]" in out


def test_bad_handlers_fail_at_trace_time_with_oneflow_messages():
    @flow.global_function()
    def TwoParams(x: tp.Numpy.Placeholder((2,))) -> None:
        flow.watch(x, lambda a, b: None)

    with pytest.raises(flow.JobDefinitionError, match="should accept only one parameter"):
        TwoParams(np.zeros(2, np.float32))

    def wrong(v: int):
        pass

    @flow.global_function()
    def BadAnn(x: tp.Numpy.Placeholder((2,))) -> None:
        flow.watch(x, wrong)

    with pytest.raises(flow.JobDefinitionError, match="candidate annotations"):
        BadAnn(np.zeros(2, np.float32))


def test_watch_diff_without_gradient_warns_once_and_never_calls():
    called = []

    @flow.global_function()
    def Predict(x: tp.Numpy.Placeholder((2,))) -> None:
        flow.watch_diff(x, called.append)

    with pytest.warns(RuntimeWarning, match="only in train jobs"):
        Predict(np.zeros(2, np.float32))
    Predict(np.zeros(2, np.float32))

    @flow.global_function(type="train")
    def Train(x: tp.Numpy.Placeholder((2,))) -> None:
        w = flow.get_variable("w", (2,), initializer=Normal())
        loss = op("mul", lambda a, b: a * b, x, w)
        unrelated = op("neg", lambda a: -a, x)
        flow.watch_diff(unrelated, called.append)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1])).minimize(loss)

    with pytest.warns(RuntimeWarning, match="no loss depends"):
        Train(np.ones(2, np.float32))
    flow.sync_default_session()
    assert called == []


def test_handler_exception_is_chained_once_and_later_calls_survive():
    seen = []

    def bad(v: tp.Numpy):
        if v[0] == 1:
            raise RuntimeError("handler failed")
        seen.append(int(v[0]))

    @flow.global_function()
    def Job(x: tp.Numpy.Placeholder((1,))) -> None:
        flow.watch(x, bad)

    for i in range(4):
        Job(np.array([i], np.float32))
    with pytest.raises(flow.CallbackError, match="handler failed") as info:
        flow.sync_default_session()
    assert isinstance(info.value.__cause__, RuntimeError)
    assert seen == [0, 2, 3]
    flow.sync_default_session()


def test_watch_with_async_callbacks_does_not_deadlock():
    seen = []

    @flow.global_function()
    def Job(x: tp.Numpy.Placeholder((2,))) -> tp.Callback[tp.Numpy]:
        flow.watch(x, lambda v: seen.append("watch"))
        return x

    for _ in range(20):
        Job(np.zeros(2, np.float32))(lambda v: seen.append("cb"))
    flow.sync_default_session()
    assert seen == ["watch", "cb"] * 20


def test_nothing_watched_compiles_the_same_program():
    def build(with_watch: bool):
        flow.clear_default_session()

        @flow.global_function()
        def Job(x: tp.Numpy.Placeholder((4,))) -> tp.Numpy:
            y = op("relu", jax.nn.relu, x)
            if with_watch:
                flow.watch(y, lambda v: None)
            return y

        Job(np.zeros(4, np.float32))
        from flowjob._src.runtime import default_session

        lowered = default_session().compiled_job(Job).lowered
        return lowered.fn.lower({}, (np.zeros(4, np.float32),), np.uint32(0)).as_text()

    plain, watched = build(False), build(True)
    assert plain == watched  # y is the return anyway: a watch of it adds no output


def test_watch_and_watch_diff_of_a_variable():
    seen = {}

    @flow.global_function(type="train")
    def Train(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        w = flow.get_variable("w", (3,), initializer=Normal())
        loss = op("loss", lambda a, w: jnp.sum(a * w, axis=1) ** 2, x, w)
        flow.watch(w, lambda v: seen.__setitem__("w", v))
        flow.watch_diff(w, lambda g: seen.__setitem__("dw", g))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0])).minimize(loss)
        return loss

    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    w0 = flow.get_all_variables()["w"].numpy()  # traces every job, so "w" exists
    Train(x)
    flow.sync_default_session()
    np.testing.assert_allclose(seen["w"], w0)
    expected = jax.grad(lambda w: jnp.sum(jnp.sum(x * w, axis=1) ** 2))(jnp.asarray(w0))
    np.testing.assert_allclose(seen["dw"], expected, rtol=1e-5)  # unscaled: sum of losses


def _job_with_local_typing_alias(seen: list):
    # Under `from __future__ import annotations` the handler's annotation is the string
    # "typing_alias.Numpy": a name only this function's scope (and the job's) can see.
    import flowjob.typing as typing_alias

    def handler(v: typing_alias.Numpy):
        seen.append(v)

    @flow.global_function()
    def job(x: typing_alias.Numpy.Placeholder((2, 3))) -> typing_alias.Numpy:
        y = flow.math.relu(x)
        flow.watch(y, handler)
        return y

    return job


def test_string_annotation_of_a_handler_resolves_in_the_defining_scope():
    seen: list = []
    job = _job_with_local_typing_alias(seen)
    x = np.array([[-1.0, 2.0, -3.0], [4.0, -5.0, 6.0]], np.float32)
    job(x)
    flow.sync_default_session()
    assert len(seen) == 1 and type(seen[0]) is np.ndarray  # tp.Numpy, not a LocalBlob
    np.testing.assert_array_equal(seen[0], np.maximum(x, 0))
