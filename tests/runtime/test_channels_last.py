"""A CPU program evaluates an NCHW convolution net channels-last (runtime/_channels_last.py):
the same results, watched values, gradients and variables as the graph evaluated as
recorded, for every op the pass rewrites and for the ones it must leave alone."""

from __future__ import annotations

import numpy as np
import pytest

from flowjob._src.runtime import _channels_last

pytestmark = pytest.mark.usefixtures("fresh_session")


def _handled_op_types(monkeypatch) -> set:
    """The op types the pass will evaluate channels-last from now on (filled as it runs)."""
    handled: set = set()
    run = _channels_last.ChannelsLast.run

    def spy(self, op, env):
        done = run(self, op, env)
        if done:
            handled.add(op.op_type)
        return done

    monkeypatch.setattr(_channels_last.ChannelsLast, "run", spy)
    return handled


def _train(flow, tp, enabled: bool, monkeypatch, seen: dict) -> dict:
    """Three steps of a small conv net using each rewritten op kind, and some it must not
    rewrite (a broadcasting add, a reduction whose kept axes would reorder); the losses,
    the watched values and gradient, and the trained variables."""
    flow.clear_default_session()
    monkeypatch.setattr(_channels_last, "ENABLED", enabled)
    out: dict = {"watch": [], "diff": []}

    @flow.global_function(type="train")
    def step(
        x: tp.Numpy.Placeholder((4, 3, 12, 12)), y: tp.Numpy.Placeholder((4,), dtype=flow.int32)
    ) -> tp.Numpy:
        init = flow.random_normal_initializer(stddev=0.3)
        h = flow.layers.conv2d(x, 6, 3, padding="SAME", kernel_initializer=init, name="c1")
        h = flow.layers.batch_normalization(h, axis=1, name="bn1")
        skip = flow.nn.relu(h)
        both = flow.concat([skip, h], axis=1)
        h = flow.layers.conv2d(both, 6, 3, padding="SAME", use_bias=False, name="c2")
        h = flow.math.tanh(h * 0.5 + skip)  # scalar op, same-shape add, unary
        flow.watch(h, lambda v: out["watch"].append(v))
        h = flow.nn.max_pool2d(h, 2, 2, "VALID")
        h = flow.nn.avg_pool2d(h, 3, 1, "SAME")
        flow.watch_diff(h, lambda d: out["diff"].append(d))
        scale = flow.get_variable("scale", (1, 6, 1, 1), initializer=init)
        h = h + scale  # broadcasts along NCHW's channel axis: stays NCHW
        w = flow.get_variable("up", (6, 4, 3, 3), initializer=init)
        h = flow.nn.conv2d_transpose(h, w, output_shape=(4, 4, 12, 12), strides=2, padding="SAME")
        h = flow.nn.relu(h)
        kept = flow.math.reduce_sum(h, axis=[1], keepdims=False)  # kept (N, H, W) in order
        spread = flow.math.reduce_max(h, axis=[0], keepdims=False)  # kept (C, H, W): not
        pooled = flow.math.reduce_mean(h, axis=[2, 3], keepdims=True)
        feats = flow.concat(
            [
                flow.reshape(pooled, (4, 4)),
                flow.reshape(flow.math.reduce_mean(kept, axis=[1, 2]), (4, 1)),
                flow.reshape(flow.math.reduce_mean(spread), (1, 1)) + flow.zeros((4, 1)),
            ],
            axis=1,
        )
        logits = flow.layers.dense(feats, 5, kernel_initializer=init, name="fc")
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(y, logits)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1])).minimize(loss)
        return loss

    seen[enabled] = _handled_op_types(monkeypatch)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 3, 12, 12)).astype(np.float32)
    y = rng.integers(0, 5, 4).astype(np.int32)
    out["loss"] = [step(x, y) for _ in range(3)]
    flow.sync_default_session()
    out["variables"] = {k: np.asarray(v) for k, v in flow.get_all_variables().items()}
    return out


def test_channels_last_program_matches_the_graph_as_recorded(monkeypatch):
    import flowjob as flow
    import flowjob.typing as tp

    seen: dict = {}
    fast = _train(flow, tp, True, monkeypatch, seen)
    plain = _train(flow, tp, False, monkeypatch, seen)
    assert seen[False] == set()
    # every kind of op the pass rewrites did run channels-last
    assert {
        "conv2d",
        "deconv2d",
        "bias_add",
        "normalization",
        "relu",
        "tanh",
        "scalar_multiply",
        "add",
        "concat",
        "max_pool_2d",
        "avg_pool_2d",
        "reduce_sum",
        "reduce_mean",
    } <= seen[True]
    assert "reduce_max" not in seen[True]  # its kept axes would come out reordered
    np.testing.assert_allclose(fast["loss"], plain["loss"], rtol=1e-5, atol=1e-6)
    for a, b in zip(fast["watch"], plain["watch"], strict=True):
        assert a.shape == b.shape == (4, 6, 12, 12)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for a, b in zip(fast["diff"], plain["diff"], strict=True):
        assert a.shape == b.shape == (4, 6, 6, 6)
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-7)
    assert fast["variables"].keys() == plain["variables"].keys()
    for name, value in fast["variables"].items():
        np.testing.assert_allclose(value, plain["variables"][name], rtol=1e-4, atol=1e-6)


def _predict(flow, tp, enabled: bool, monkeypatch) -> np.ndarray:
    flow.clear_default_session()
    monkeypatch.setattr(_channels_last, "ENABLED", enabled)
    uniform = flow.random_uniform_initializer(0.5, 2.0)

    @flow.global_function()
    def infer(x: tp.Numpy.Placeholder((2, 3, 9, 9))) -> tp.Numpy:
        h = flow.layers.conv2d(x, 4, 3, padding="VALID", name="c")
        h = flow.layers.batch_normalization(
            h,
            axis=1,
            training=False,
            gamma_initializer=uniform,
            beta_initializer=uniform,
            moving_mean_initializer=uniform,
            moving_variance_initializer=uniform,
            name="bn",
        )
        h = flow.nn.leaky_relu(h, alpha=0.1)
        h = flow.nn.max_pool2d(h, 3, 2, "SAME")
        return flow.math.reduce_mean(h, axis=[2, 3], keepdims=False)

    x = np.random.default_rng(1).normal(size=(2, 3, 9, 9)).astype(np.float32)
    return infer(x)


def test_predict_program_with_inference_batch_norm(monkeypatch):
    import flowjob as flow
    import flowjob.typing as tp

    handled = _handled_op_types(monkeypatch)
    fast = _predict(flow, tp, True, monkeypatch)
    plain = _predict(flow, tp, False, monkeypatch)
    assert {"batch_normalization", "leaky_relu", "max_pool_2d", "reduce_mean"} <= handled
    assert fast.shape == (2, 4)
    np.testing.assert_allclose(fast, plain, rtol=1e-5, atol=1e-6)


def test_only_one_device_cpu_programs_are_rewritten(fresh_session):
    from flowjob._src.kernels import lowering_for
    from flowjob._src.runtime._session import default_session

    flow = fresh_session
    import flowjob.typing as tp

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((1, 2, 4, 4))) -> tp.Numpy:
        w = flow.get_variable("w", (3, 2, 1, 1), initializer=flow.ones_initializer())
        return flow.nn.conv2d(x, w, 1, "VALID")

    x = np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4)
    np.testing.assert_array_equal(job(x), np.repeat(x.sum(1, keepdims=True), 3, axis=1))
    graph = default_session().compiled[job.__name__].traced.graph
    with lowering_for("cpu"):
        assert _channels_last.wanted(graph, None)
        assert not _channels_last.wanted(graph, mesh=object())
    with lowering_for("gpu"):
        assert not _channels_last.wanted(graph, None)


def test_micro_batched_convolutions_run_as_recorded(fresh_session):
    # flow.unpack's micro-batches are stacked on a leading axis of the blobs' values
    flow = fresh_session
    import flowjob.typing as tp

    w = np.random.default_rng(2).normal(size=(3, 2, 3, 3)).astype(np.float32)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 2, 6, 6))) -> tp.Numpy:
        weight = flow.get_variable("w", w.shape, initializer=flow.constant_initializer(0.0))
        pieces = flow.unpack(x, 2)
        y = flow.nn.relu(flow.nn.conv2d(pieces, weight + w, 1, "VALID"))
        return flow.pack(y, 2)

    x = np.random.default_rng(3).normal(size=(4, 2, 6, 6)).astype(np.float32)
    patches = np.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(2, 3))
    expected = np.maximum(np.einsum("nchwij,ocij->nohw", patches, w), 0)
    np.testing.assert_allclose(job(x), expected, rtol=1e-4, atol=1e-5)


def _conv_train(flow, tp, enabled: bool, monkeypatch) -> tuple[list, np.ndarray, str]:
    """Two SGD steps of a convolution and a transposed convolution, both on oneDNN; the
    losses, the trained weight and the step's optimized program."""
    from flowjob._src.runtime._session import default_session

    flow.clear_default_session()
    monkeypatch.setattr(_channels_last, "ENABLED", enabled)
    init = flow.random_normal_initializer(stddev=0.3)

    @flow.global_function(type="train")
    def step(x: tp.Numpy.Placeholder((2, 4, 9, 9))) -> tp.Numpy:
        # a 3x5 window: OIHW (8, 4, 3, 5) and OHWI (8, 3, 5, 4) differ in every axis but O
        w = flow.get_variable("w", (8, 4, 3, 5), initializer=init)
        h = flow.nn.relu(flow.nn.conv2d(x, w, 1, "SAME"))
        up = flow.get_variable("up", (8, 6, 3, 3), initializer=init)  # IOHW
        h = flow.nn.conv2d_transpose(h, up, output_shape=(2, 6, 17, 17), strides=2, padding="SAME")
        loss = flow.math.reduce_mean(flow.math.square(h))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1])).minimize(loss)
        return loss

    x = np.random.default_rng(4).normal(size=(2, 4, 9, 9)).astype(np.float32)
    losses = [float(step(x).item()) for _ in range(2)]
    flow.sync_default_session()
    entry = default_session().compiled[step.__name__]
    state = default_session().state.for_call(entry.lowered)
    text = entry.lowered.fn.lower(state, (x,), np.uint32(0)).compile().as_text()
    return losses, np.asarray(flow.get_all_variables()["w"]), text


def test_onednn_takes_the_weights_as_they_lie(monkeypatch):
    import flowjob as flow
    import flowjob.typing as tp

    monkeypatch.setenv("FLOWJOB_CONV_KERNEL", "onednn")
    fast_losses, fast_w, text = _conv_train(flow, tp, True, monkeypatch)
    plain_losses, plain_w, _ = _conv_train(flow, tp, False, monkeypatch)
    # the convolution's forward and weight gradient (its input is no variable), the
    # transposed convolution's forward and both gradients
    assert text.count("flowjob_onednn_conv") == 5
    # no per-step copy of either weight (or of its gradient) in a channels-last layout
    for shape in ("f32[8,3,5,4]", "f32[3,5,4,8]", "f32[8,3,3,6]", "f32[3,3,6,8]"):
        assert shape not in text
    np.testing.assert_allclose(fast_losses, plain_losses, rtol=1e-5)
    np.testing.assert_allclose(fast_w, plain_w, rtol=1e-4, atol=1e-6)
