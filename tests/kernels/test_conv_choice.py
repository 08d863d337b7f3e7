"""The choice between oneDNN's and XLA's convolution (``kernels.conv_kernel``): the faster
one on this machine serves each convolution, decided once and kept on disk; the policy
variable overrides it; a GPU program never gets oneDNN. Timings are injected (``race``) so
the tests do not depend on the machine's load, except one that races for real."""

from __future__ import annotations

import dataclasses
import json

import jax
import numpy as np
import pytest
from jax import lax

from flowjob._src import kernels
from flowjob._src.kernels import _choice
from flowjob._src.ops._conv import lower_conv2d
from flowjob._src.ops._modes import DataFormat

pytestmark = pytest.mark.skipif(
    not kernels.onednn_available(), reason="flowjob-onednn (kernels/onednn) is not installed"
)
TARGET = "flowjob_onednn_conv"


@pytest.fixture
def measured(measure_policy):
    """The ``measure`` policy with an empty cache folder and no decision in memory; yields
    the list of races run and the folder."""
    races: list = []
    yield races, measure_policy.parent


def _fake_race(races, onednn_s, xla_s):
    def race(first, second):
        races.append((first, second))
        return onednn_s, xla_s

    return race


def _uses_onednn(channels=8, kernel=3, differentiated=True) -> bool:
    """Whether a conv of this size, lowered for the CPU, calls the oneDNN kernel
    (``differentiated``: in a program that may differentiate it, or a forward-only one)."""
    x = np.ones((2, channels, 9, 9), np.float32)
    w = np.ones((4, channels, kernel, kernel), np.float32)

    def f(a, b):
        return lower_conv2d(
            a, b, strides=(1, 1), pads=((1, 1), (1, 1)), dilations=(1, 1), groups=1,
            data_format=DataFormat.NCHW,
        )  # fmt: skip

    with kernels.lowering_for("cpu", differentiated):
        return TARGET in jax.jit(f).lower(x, w).as_text()


@pytest.mark.parametrize("onednn_s, xla_s, expected", [(1.0, 2.0, True), (2.0, 1.0, False)])
def test_the_faster_kernel_serves_and_the_decision_is_kept(
    measured, monkeypatch, capsys, onednn_s, xla_s, expected
):
    races, folder = measured
    monkeypatch.setattr(_choice, "race", _fake_race(races, onednn_s, xla_s))
    assert _uses_onednn() is expected
    assert _uses_onednn() is expected and len(races) == 1  # decided once
    said = capsys.readouterr().err  # the pause is announced, once
    assert said.count("flowjob: timing oneDNN and XLA") == 1 and "conv-kernels.json" in said
    stored = json.loads((folder / _choice.FILE_NAME).read_text())
    (key, value), = stored.items()  # fmt: skip
    assert value is expected and "conv2d|(2, 8, 9, 9)|(4, 8, 3, 3)" in key and "NCHW" in key
    # a later process: the file's decision, no race
    monkeypatch.setattr(_choice, "_decisions", {})
    monkeypatch.setattr(_choice, "race", _fake_race(races, xla_s, onednn_s))  # would flip it
    assert _uses_onednn() is expected and len(races) == 1


@pytest.mark.parametrize("xla_share, expected", [(0.95, True), (0.5, False)])
def test_xla_serves_only_when_it_wins_by_the_margin(measured, monkeypatch, xla_share, expected):
    """A close race (within the noise of a few repeats) keeps oneDNN."""
    races, _ = measured
    assert 0.5 < _choice.XLA_MARGIN < 0.95
    monkeypatch.setattr(_choice, "race", _fake_race(races, 1.0, xla_share))
    assert _uses_onednn() is expected


def test_a_forward_only_program_decides_apart_without_the_margin(measured, monkeypatch):
    """Predict programs race the forward pass alone and take the faster kernel."""
    races, folder = measured
    monkeypatch.setattr(_choice, "race", _fake_race(races, 1.0, 0.9))
    assert _uses_onednn() is True  # within the margin of a train step's race
    assert _uses_onednn(differentiated=False) is False
    assert len(races) == 2
    stored = json.loads((folder / _choice.FILE_NAME).read_text())
    assert sorted(("conv2d forward|" in k, v) for k, v in stored.items()) == [
        (False, True),
        (True, False),
    ]


@pytest.mark.parametrize("data_format", ["NCHW", "NHWC"])
def test_the_forward_race_runs_the_convolution_with_bias_and_relu(data_format):
    """Both candidates of a forward-only race compute the same relu(conv(x, w) + bias)."""
    x_shape, w_shape = ((2, 3, 8, 8), (4, 3, 3, 3))
    if data_format == "NHWC":
        x_shape, w_shape = (2, 8, 8, 3), (4, 3, 3, 3)
    settings = dict(strides=(1, 1), pads=((1, 1), (1, 1)), dilations=(1, 1), groups=1)
    with kernels.lowering_for("cpu", differentiated=False):
        sig = kernels.ConvSignature.of(
            np.ones(x_shape, np.float32), np.ones(w_shape, np.float32),
            data_format=data_format, **settings,
        )  # fmt: skip
    assert sig.differentiated is False
    dims = (data_format, "OIHW" if data_format == "NCHW" else "OHWI", data_format)
    if data_format == "NHWC":
        sig = dataclasses.replace(sig, w_shape=(4, 3, 3, 3))

    def xla(a, b):
        return lax.conv_general_dilated(
            a, b, (1, 1), ((1, 1), (1, 1)), dimension_numbers=dims, precision="highest"
        )

    onednn_run, xla_run = _choice._candidates(sig, xla)
    got, want = np.asarray(onednn_run()), np.asarray(xla_run())
    channels = 1 if data_format == "NCHW" else 3
    assert got.shape == want.shape and got.shape[channels] == 4
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    assert (want >= 0).all() and (want == 0).any()  # a ReLU ends it


def test_a_fast_candidate_is_timed_over_many_runs():
    calls = {"first": 0, "second": 0}

    def counted(name):
        def run():
            calls[name] += 1

        return run

    first_s, second_s = _choice.race(counted("first"), counted("second"))
    assert calls["first"] > 2 + _choice._REPEATS and calls["second"] > 2 + _choice._REPEATS
    assert first_s < _choice._SAMPLE_S and second_s < _choice._SAMPLE_S


def test_a_damaged_decision_file_is_measured_again(measured, monkeypatch):
    races, folder = measured
    (folder / _choice.FILE_NAME).write_text("{not json")
    monkeypatch.setattr(_choice, "race", _fake_race(races, 1.0, 2.0))
    assert _uses_onednn() is True and len(races) == 1
    assert list(json.loads((folder / _choice.FILE_NAME).read_text()).values()) == [True]


@pytest.mark.parametrize(
    "policy, channels, expected",
    [("xla", 8, False), ("onednn", 1, True), ("rule", 1, False), ("rule", 8, True)],
)
def test_the_policy_variable_overrides_the_measurement(monkeypatch, policy, channels, expected):
    monkeypatch.setenv("FLOWJOB_CONV_KERNEL", policy)
    monkeypatch.setattr(_choice, "race", lambda *a: pytest.fail("no race under a fixed policy"))
    # 1 input channel x 3x3 = 9 products per output element: below the rule's 32
    assert _uses_onednn(channels=channels) is expected


def test_an_unknown_policy_is_refused_naming_the_variable(monkeypatch):
    monkeypatch.setenv("FLOWJOB_CONV_KERNEL", "fastest")
    with pytest.raises(ValueError, match="FLOWJOB_CONV_KERNEL must be one of .* got 'fastest'"):
        _uses_onednn()


def _signature(channels=8, kernel=3, dtype=np.float32, platform="cpu"):
    x = np.ones((2, channels, 9, 9), dtype)
    w = np.ones((4, channels, kernel, kernel), dtype)
    settings = dict(strides=(1, 1), pads=((1, 1), (1, 1)), dilations=(1, 1), groups=1)
    with kernels.lowering_for(platform):
        return kernels.ConvSignature.of(x, w, data_format=DataFormat.NCHW, **settings)


def _xla(a, b):
    return lax.conv_general_dilated(a, b, (1, 1), ((1, 1), (1, 1)))


@pytest.mark.parametrize(
    "value, channels, onednn_faster, expected",
    [
        ("xla", 8, True, "xla"),
        ("onednn", 1, False, "onednn"),  # 9 products per output element, and XLA faster
        (" OneDNN ", 8, False, "onednn"),  # spelled in any case, spaces around
        ("rule", 1, True, "xla"),  # below MIN_REDUCTION
        ("rule", 8, False, "onednn"),  # 72 products: from MIN_REDUCTION on, no race
        ("measure", 8, True, "onednn"),
        ("measure", 8, False, "xla"),
        ("", 1, True, "onednn"),  # empty: measure, whatever the size
    ],
)
def test_each_policy_value_gives_its_kernel_through_conv_kernel(
    measured, monkeypatch, value, channels, onednn_faster, expected
):
    races, _ = measured
    times = (1.0, 2.0) if onednn_faster else (2.0, 1.0)
    monkeypatch.setattr(_choice, "race", _fake_race(races, *times))
    monkeypatch.setenv("FLOWJOB_CONV_KERNEL", value)
    got = kernels.conv_kernel(_signature(channels), _xla)
    assert got is kernels.ConvKernel(expected)
    assert len(races) == (value.strip() in ("measure", ""))  # only the measure policy races


@pytest.mark.parametrize("value", _choice.POLICIES)
@pytest.mark.parametrize("case", ["gpu", "float64", "disabled", "three-dimensional"])
def test_xla_serves_what_onednn_cannot_whatever_the_policy(measured, monkeypatch, value, case):
    """A GPU program (a CPU-only FFI target), another dtype, kernels switched off or a
    non-2-D convolution: XLA's, and no race."""
    races, _ = measured
    monkeypatch.setattr(_choice, "race", _fake_race(races, 0.0, 1.0))
    monkeypatch.setenv("FLOWJOB_CONV_KERNEL", value)
    signature = _signature(
        dtype=np.float64 if case == "float64" else np.float32,
        platform="gpu" if case == "gpu" else "cpu",
    )
    if case == "disabled":
        monkeypatch.setattr(kernels, "ENABLED", False)
    if case == "three-dimensional":
        signature = dataclasses.replace(signature, x_shape=(2, 8, 9, 9, 9))
    assert kernels.conv_kernel(signature, _xla) is kernels.ConvKernel.XLA
    assert races == []


def test_a_real_race_inside_a_traced_job_gives_xlas_values(measured):
    """The race runs while the outer program is being traced (its candidates run at once,
    not staged into it); whichever kernel wins, values and gradients match XLA's."""
    races, folder = measured
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 16, 12, 12)).astype(np.float32)
    w = rng.standard_normal((8, 16, 3, 3)).astype(np.float32)
    args = dict(strides=(1, 1), pads=((1, 1), (1, 1)), dilations=(1, 1), groups=1)

    def loss(conv, a, b):
        return (conv(a, b) ** 2).sum()

    def ours(a, b):
        with kernels.lowering_for("cpu"):
            return lower_conv2d(a, b, data_format=DataFormat.NCHW, **args)

    def reference(a, b):
        return lax.conv_general_dilated(
            a, b, (1, 1), ((1, 1), (1, 1)), dimension_numbers=("NCHW", "OIHW", "NCHW"),
            precision="highest",
        )  # fmt: skip

    got = jax.jit(jax.value_and_grad(lambda a, b: loss(ours, a, b), (0, 1)))(x, w)
    want = jax.value_and_grad(lambda a, b: loss(reference, a, b), (0, 1))(x, w)
    for g, r in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(r), rtol=2e-4, atol=1e-2)
    assert len(json.loads((folder / _choice.FILE_NAME).read_text())) == 1


@pytest.mark.usefixtures("fresh_session")
def test_predict_jobs_choose_for_the_forward_pass_and_train_jobs_for_gradients(
    measured, monkeypatch
):
    import flowjob as flow
    import flowjob.typing as tp

    races, folder = measured
    monkeypatch.setattr(_choice, "race", _fake_race(races, 1.0, 2.0))
    x = np.ones((2, 8, 9, 9), np.float32)

    def body(images):
        w = flow.get_variable("w", (4, 8, 3, 3), initializer=flow.constant_initializer(0.1))
        out = flow.nn.conv2d(images, w, strides=1, padding="SAME")
        return flow.math.reduce_mean(out)

    @flow.global_function(type="predict")
    def predict(images: tp.Numpy.Placeholder((2, 8, 9, 9))) -> tp.Numpy:
        return body(images)

    predict(x)
    kinds = {k.split("|")[4] for k in json.loads((folder / _choice.FILE_NAME).read_text())}
    assert kinds == {"conv2d forward"}

    @flow.global_function(type="train")
    def train(images: tp.Numpy.Placeholder((2, 8, 9, 9))) -> tp.Numpy:
        loss = body(images)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1])).minimize(loss)
        return loss

    train(x)
    kinds = {k.split("|")[4] for k in json.loads((folder / _choice.FILE_NAME).read_text())}
    assert kinds == {"conv2d forward", "conv2d"}
