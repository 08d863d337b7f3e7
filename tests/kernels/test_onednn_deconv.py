"""Transposed convolutions on oneDNN (the convolution's backward-data primitive): values and
both gradients against XLA's in float64 and against PyTorch's ``conv_transpose2d``, and the
per-shape kernel choice deciding them apart from convolutions.

Skipped when the optional flowjob-onednn build (kernels/onednn) is not installed.
"""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from flowjob._src import kernels
from flowjob._src.kernels import _choice
from flowjob._src.ops import _conv_transpose
from flowjob._src.ops._modes import DataFormat

pytestmark = pytest.mark.skipif(
    not kernels.onednn_available(), reason="flowjob-onednn (kernels/onednn) is not installed"
)
TARGET = "flowjob_onednn_conv"

# (input spatial, kernel, strides, pads of the convolution it transposes, dilations, output
# spatial); the last two leave rows of the output that no input element reaches (PyTorch's
# output_padding), which the convolution's arithmetic rounds away
CASES = [
    ((7, 7), (5, 5), (2, 2), ((1, 2), (1, 2)), (1, 1), (14, 14)),  # TF's SAME, DCGAN's layer
    ((7, 7), (5, 5), (1, 1), ((2, 2), (2, 2)), (1, 1), (7, 7)),
    ((4, 4), (3, 2), (2, 1), ((1, 0), (0, 1)), (1, 2), (9, 5)),
    ((5, 5), (3, 3), (2, 2), ((1, 1), (1, 1)), (1, 1), (10, 10)),
    ((4, 6), (3, 3), (3, 2), ((0, 0), (1, 1)), (2, 1), (14, 12)),
]


def _shapes(case, data_format, weight_format=None, n=3, cin=6, cout=5):
    spatial, kernel, _, _, _, out = case
    if data_format == "NCHW":
        return (n, cin, *spatial), (cin, cout, *kernel), (n, cout, *out)
    if weight_format == "OIHW":  # IOHW as recorded, beside NHWC data
        return (n, *spatial, cin), (cin, cout, *kernel), (n, *out, cout)
    return (n, *spatial, cin), (cin, *kernel, cout), (n, *out, cout)


def _reference(x, w, out_shape, strides, pads, dilations, data_format, weight_format=None):
    """The input gradient of XLA's convolution of an ``out_shape`` operand with ``w``."""
    kernel = "OIHW" if data_format == "NCHW" or weight_format == "OIHW" else "OHWI"

    def conv(z):
        return lax.conv_general_dilated(
            z, w, strides, pads, rhs_dilation=dilations,
            dimension_numbers=(data_format, kernel, data_format), precision="highest",
        )  # fmt: skip

    return jax.vjp(conv, jnp.zeros(out_shape, x.dtype))[1](x)[0]


@pytest.mark.parametrize(
    "layout", [("NCHW", None), ("NHWC", None), ("NHWC", "OIHW")], ids=["NCHW", "NHWC", "NHWC-IOHW"]
)
@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_forward_and_gradients_match_xla_float64(layout, case):
    data_format, weight_format = layout
    _, _, strides, pads, dilations, _ = case
    xs, ws, out_shape = _shapes(case, data_format, weight_format)
    rng = np.random.default_rng(len(str(case)))
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    args = (strides, pads, dilations, 1, data_format, weight_format)

    def ours(a, b):
        return kernels.conv2d_transpose_onednn(a, b, out_shape, *args)

    def ref(a, b):
        return _reference(a, b, out_shape, strides, pads, dilations, data_format, weight_format)

    x32, w32 = x.astype(np.float32), w.astype(np.float32)
    weights = np.arange(np.prod(out_shape)).reshape(out_shape) / np.prod(out_shape)

    def loss(f, dtype):  # non-linear, so the output gradient is not constant
        return lambda a, b: jnp.sum(jnp.sin(f(a, b)) * weights.astype(dtype))

    with jax.enable_x64(True):
        want = ref(x, w)
        rx, rw = jax.grad(loss(ref, np.float64), (0, 1))(x, w)
    got = jax.jit(ours)(x32, w32)
    assert got.dtype == jnp.float32 and got.shape == out_shape
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=1e-4, atol=1e-4)
    dx, dw = jax.jit(jax.grad(loss(ours, np.float32), (0, 1)))(x32, w32)
    np.testing.assert_allclose(np.asarray(dx, np.float64), rx, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(dw, np.float64), rw, rtol=1e-4, atol=2e-4)


@pytest.mark.usefixtures("fresh_session")
@pytest.mark.parametrize("policy", ["onednn", "xla"])
def test_a_train_job_matches_pytorch_conv_transpose2d(monkeypatch, policy):
    """``flow.nn.torch_conv2d_transpose`` in a train job, its weight a variable, with every
    transposed convolution on oneDNN (or XLA's): output and the weight's gradient (read
    through ``watch_diff``) equal PyTorch's."""
    torch = pytest.importorskip("torch")
    import flowjob as flow
    import flowjob.typing as tp

    monkeypatch.setenv("FLOWJOB_CONV_KERNEL", policy)
    traced = []
    real = kernels.conv2d_transpose_onednn
    monkeypatch.setattr(kernels, "conv2d_transpose_onednn", lambda *a: traced.append(1) or real(*a))
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 8, 7, 7)).astype(np.float32)
    w0 = (0.1 * rng.standard_normal((8, 6, 5, 5))).astype(np.float32)
    seen = {}

    @flow.global_function(type="train")
    def job(images: tp.Numpy.Placeholder((4, 8, 7, 7))) -> tp.Numpy:
        w = flow.get_variable("w", (8, 6, 5, 5), initializer=flow.zeros_initializer())
        flow.watch_diff(w, lambda d: seen.setdefault("dw", d))
        y = flow.nn.torch_conv2d_transpose(
            images, w, strides=2, padding_needed=[4, 4], output_padding=[1, 1]
        )
        flow.watch(y, lambda v: seen.setdefault("y", v))
        loss = flow.math.reduce_mean(flow.math.square(y))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0])).minimize(loss)
        return loss

    flow.load_variables({"w": w0})
    job(x)
    flow.sync_default_session()
    assert bool(traced) is (policy == "onednn")
    xt = torch.from_numpy(x)
    wt = torch.from_numpy(w0).requires_grad_(True)
    yt = torch.nn.functional.conv_transpose2d(xt, wt, stride=2, padding=2, output_padding=1)
    (yt**2).mean().backward()
    assert seen["y"].shape == (4, 6, 14, 14)
    np.testing.assert_allclose(seen["y"], yt.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(seen["dw"], wt.grad.numpy(), rtol=1e-4, atol=1e-6)


def _lowered(x_shape, w_shape, out_shape, differentiated=True) -> str:
    attrs = dict(
        output_shape=out_shape, strides=(2, 2), pads=((1, 2), (1, 2)), dilations=(1, 1),
        data_format=DataFormat.NCHW,
    )  # fmt: skip

    def f(a, b):
        return _conv_transpose._lower_deconv(a, b, **attrs)

    x, w = np.ones(x_shape, np.float32), np.ones(w_shape, np.float32)
    with kernels.lowering_for("cpu", differentiated):
        return jax.jit(f).lower(x, w).as_text()


@pytest.mark.parametrize("onednn_s, xla_s, expected", [(1.0, 2.0, True), (2.0, 0.5, False)])
def test_the_measured_choice_serves_transposed_convolutions_apart(
    measure_policy, monkeypatch, onednn_s, xla_s, expected
):
    races = []

    def race(first, second):
        races.append((first, second))
        return onednn_s, xla_s

    monkeypatch.setattr(_choice, "race", race)
    shapes = ((2, 8, 7, 7), (8, 4, 5, 5), (2, 4, 14, 14))
    assert (TARGET in _lowered(*shapes)) is expected
    assert (TARGET in _lowered(*shapes, differentiated=False)) is expected
    kinds = sorted(k.split("|")[4] for k in json.loads(measure_policy.read_text()))
    assert kinds == ["conv2d transposed", "conv2d transposed forward"]
    assert len(races) == 2
    assert (TARGET in _lowered(*shapes)) is expected  # kept: no third race
    assert len(races) == 2


def test_a_real_race_runs_the_transposed_convolution(measure_policy):
    """The candidates the race times are the transposed convolution (both kernels give XLA's
    values), whichever wins."""
    shapes = ((2, 8, 7, 7), (8, 4, 5, 5), (2, 4, 14, 14))
    signature = kernels.ConvSignature.of(
        np.ones(shapes[0], np.float32), np.ones(shapes[1], np.float32),
        strides=(2, 2), pads=((1, 2), (1, 2)), dilations=(1, 1), groups=1,
        data_format=DataFormat.NCHW, transposed_to=shapes[2],
    )  # fmt: skip
    xla = lambda a, b: _conv_transpose._xla_deconv(a, b, shapes[2], *signature.settings)  # noqa: E731
    onednn, reference = _choice._candidates(signature, xla)
    for got, want in zip(jax.tree.leaves(onednn()), jax.tree.leaves(reference())):
        assert got.shape in (shapes[0], shapes[1])
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-3, atol=1e-3)
    kernels.conv_kernel(signature, xla)
    assert len(json.loads(measure_policy.read_text())) == 1


def test_a_gpu_program_never_carries_the_call():
    shapes = ((2, 8, 7, 7), (8, 4, 5, 5), (2, 4, 14, 14))

    def step(a, b):
        with kernels.lowering_for("gpu"):
            y = _conv_transpose._lower_deconv(
                a, b, output_shape=shapes[2], strides=(2, 2), pads=((1, 2), (1, 2)),
                dilations=(1, 1), data_format=DataFormat.NCHW,
            )  # fmt: skip
        return jnp.sum(y * y)

    x, w = np.ones(shapes[0], np.float32), np.ones(shapes[1], np.float32)
    text = jax.jit(jax.grad(step, (0, 1))).lower(x, w).as_text()
    assert TARGET not in text and "stablehlo.convolution" in text
