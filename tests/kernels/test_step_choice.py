"""The per-convolution kernel choice re-checked on the whole train step
(``kernels._step_choice``, ``runtime/_step_kernels.py``): a step whose measured decisions mix
oneDNN and XLA is timed whole against all-oneDNN at its first compile on a machine; the faster
serves and the verdict is kept, and the timing runs leave the job's state alone."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from flowjob._src import kernels
from flowjob._src.kernels import _choice, _step_choice

pytestmark = pytest.mark.skipif(
    not kernels.onednn_available(), reason="flowjob-onednn (kernels/onednn) is not installed"
)


def _sleeper(seconds, calls):
    def run():
        calls.append(seconds)
        time.sleep(seconds)

    return run


CHOSEN = [
    (_choice.decision_key(("conv2d", (1, 2, 3, 3), "a")), True),
    (_choice.decision_key(("conv2d", (1, 2, 5, 5), "b")), False),
]


@pytest.mark.parametrize("onednn_faster", [True, False])
def test_the_faster_whole_step_is_kept(measure_policy, onednn_faster):
    for key, onednn in CHOSEN:
        _choice.decide(key, onednn)
    assert _step_choice.step_needs_judging(CHOSEN)
    calls: list = []
    fast, slow = _sleeper(0.01, calls), _sleeper(0.05, calls)
    measured_run, onednn_run = (slow, fast) if onednn_faster else (fast, slow)
    assert _step_choice.judge_step("job", CHOSEN, measured_run, onednn_run) is onednn_faster
    assert len(calls) == 2 * (1 + _step_choice._STEP_RUNS)
    stored = json.loads(measure_policy.read_text())
    if onednn_faster:  # the XLA decision turned into a oneDNN one: no mix is left
        assert stored[CHOSEN[1][0]] is True
        now = [(key, _choice.decided(key)) for key, _ in CHOSEN]
        assert not _step_choice.step_needs_judging(now)
    else:  # the mix kept, and this step is not timed again
        assert stored[CHOSEN[1][0]] is False
        assert any("train step" in k for k in stored)
        assert not _step_choice.step_needs_judging(CHOSEN)


def test_the_mix_is_kept_only_when_clearly_faster(measure_policy, monkeypatch):
    # oneDNN's whole step wins ties and near-ties: the mix needs MIX_MARGIN
    monkeypatch.setattr(_step_choice, "MIX_MARGIN", 1.5)
    for key, onednn in CHOSEN:
        _choice.decide(key, onednn)
    calls: list = []
    measured_run, onednn_run = _sleeper(0.02, calls), _sleeper(0.025, calls)
    assert _step_choice.judge_step("job", CHOSEN, measured_run, onednn_run) is True
    assert json.loads(measure_policy.read_text())[CHOSEN[1][0]] is True


def test_steps_of_one_kernel_or_other_policies_are_not_judged(measure_policy, monkeypatch):
    assert not _step_choice.step_needs_judging([(k, True) for k, _ in CHOSEN])
    assert not _step_choice.step_needs_judging([(k, False) for k, _ in CHOSEN])
    assert not _step_choice.step_needs_judging([])
    monkeypatch.setenv("FLOWJOB_CONV_KERNEL", "rule")
    assert not _step_choice.step_needs_judging(CHOSEN)


def _train(flow, tp, steps):
    """Two convolutions of different shapes (so they can take different kernels), SGD."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 8, 10, 10)).astype(np.float32)

    @flow.global_function(type="train")
    def job(images: tp.Numpy.Placeholder((4, 8, 10, 10))) -> tp.Numpy:
        init = flow.random_normal_initializer(stddev=0.1, seed=1)
        w1 = flow.get_variable("w1", (16, 8, 3, 3), initializer=init)
        w2 = flow.get_variable("w2", (8, 16, 5, 5), initializer=init)
        h = flow.nn.relu(flow.nn.conv2d(images, w1, strides=1, padding="SAME"))
        y = flow.nn.conv2d(h, w2, strides=1, padding="SAME")
        loss = flow.math.reduce_mean(flow.math.square(y))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1])).minimize(loss)
        return loss

    losses = [float(job(x).reshape(-1)[0]) for _ in range(steps)]
    return losses, {n: np.asarray(v) for n, v in flow.get_all_variables().items()}


@pytest.mark.parametrize("onednn_wins", [True, False])
def test_a_mixed_train_step_is_judged_once_and_trains_as_without_it(
    measure_policy, monkeypatch, fresh_session, onednn_wins
):
    flow = fresh_session
    import flowjob.typing as tp

    # the race gives XLA the first convolution it times, oneDNN the second: a mixed step
    races: list = []

    def race(first, second):
        races.append(1)
        return (1.0, 0.1) if len(races) == 1 else (1.0, 2.0)

    monkeypatch.setattr(_choice, "race", race)
    judged: list = []

    def judge(name, chosen, measured_run, onednn_run):  # a verdict without timing
        measured_run(), onednn_run()  # both programs run (on copies of the state)
        judged.append((name, sorted(onednn for _, onednn in chosen)))
        _step_choice.keep_verdict(chosen, onednn_wins)
        return onednn_wins

    monkeypatch.setattr(kernels, "judge_step", judge)
    losses, values = _train(flow, tp, 3)
    assert judged == [("job", [False, True])]

    # the reference: the same job with every convolution on XLA, no judgment
    flow.clear_default_session()
    monkeypatch.setenv("FLOWJOB_CONV_KERNEL", "xla")
    ref_losses, ref_values = _train(flow, tp, 3)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-4)
    for name, value in ref_values.items():
        np.testing.assert_allclose(values[name], value, rtol=1e-4, atol=1e-6)

    # a second process (decisions from the file only) judges nothing again
    flow.clear_default_session()
    monkeypatch.setenv("FLOWJOB_CONV_KERNEL", "measure")
    monkeypatch.setattr(_choice, "_decisions", {})
    _train(flow, tp, 1)
    assert len(judged) == 1
