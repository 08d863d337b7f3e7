"""oneDNN convolution custom calls against XLA's convolution in float64 (values and gradients).

Skipped when the optional flowjob-onednn build (kernels/onednn) is not installed.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from flowjob._src import kernels

pytestmark = pytest.mark.skipif(
    not kernels.onednn_available(), reason="flowjob-onednn (kernels/onednn) is not installed"
)

# (strides, pads, dilations, groups)
WINDOWS = [
    ((1, 1), ((0, 0), (0, 0)), (1, 1), 1),
    ((2, 2), ((1, 1), (1, 1)), (1, 1), 1),
    ((2, 1), ((1, 2), (0, 1)), (1, 2), 1),
    ((1, 1), ((1, 1), (1, 1)), (1, 1), 2),
    ((2, 2), ((0, 1), (2, 0)), (2, 1), 4),
    ((1, 1), ((1, 1), (1, 1)), (1, 1), 8),  # depthwise: one input channel per group
]


def _reference(x, w, strides, pads, dilations, groups, data_format, weight_format=None):
    kernel = "OIHW" if data_format == "NCHW" or weight_format == "OIHW" else "OHWI"
    return lax.conv_general_dilated(
        x,
        w,
        strides,
        pads,
        rhs_dilation=dilations,
        dimension_numbers=(data_format, kernel, data_format),
        feature_group_count=groups,
        precision="highest",
    )


def _operands(data_format, weight_format, groups, seed):
    rng = np.random.default_rng(seed)
    n, c, h, wd, o, kh, kw = 3, 8, 11, 9, 16, 3, 2
    x = rng.standard_normal((n, c, h, wd) if data_format == "NCHW" else (n, h, wd, c))
    oihw = data_format == "NCHW" or weight_format == "OIHW"
    w = rng.standard_normal((o, c // groups, kh, kw) if oihw else (o, kh, kw, c // groups))
    return x, w


# (data format, weight format): NHWC data with OIHW weights is how a channels-last program
# (runtime/_channels_last.py) hands over a convolution's weights
LAYOUTS = [("NCHW", None), ("NHWC", None), ("NHWC", "OIHW")]


@pytest.fixture(scope="module", autouse=True)
def _float64():
    with jax.enable_x64(True):
        yield


@pytest.mark.parametrize("layout", LAYOUTS, ids=["NCHW", "NHWC", "NHWC-OIHW"])
@pytest.mark.parametrize("window", WINDOWS, ids=[f"window{i}" for i in range(len(WINDOWS))])
def test_forward_and_gradients_match_xla_float64(layout, window):
    strides, pads, dilations, groups = window
    x, w = _operands(*layout, groups, seed=len(str(window)))
    args = (strides, pads, dilations, groups, *layout)
    x32, w32 = x.astype(np.float32), w.astype(np.float32)

    y = jax.jit(lambda a, b: kernels.conv2d_onednn(a, b, *args))(x32, w32)
    ref = _reference(x, w, *args)
    assert y.dtype == jnp.float32 and y.shape == ref.shape
    np.testing.assert_allclose(np.asarray(y, np.float64), ref, rtol=1e-4, atol=1e-4)

    # a non-linear loss so the output gradient is not constant
    def loss(conv):
        return lambda a, b: jnp.sum(
            jnp.sin(conv(a, b, *args)) * jnp.arange(ref.size).reshape(ref.shape) / ref.size
        )

    dx, dw = jax.jit(jax.grad(loss(kernels.conv2d_onednn), (0, 1)))(x32, w32)
    rx, rw = jax.grad(loss(_reference), (0, 1))(x, w)
    np.testing.assert_allclose(np.asarray(dx, np.float64), rx, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(dw, np.float64), rw, rtol=1e-4, atol=2e-4)


def test_primitives_are_reused_across_shapes_and_calls():
    # Two shapes alternating in one program, then again: cached primitives must not mix up
    # geometries (the cache key covers every dimension and window attribute).
    args = ((1, 1), ((1, 1), (1, 1)), (1, 1), 1, "NCHW")
    rng = np.random.default_rng(7)
    xs = [rng.standard_normal(s).astype(np.float32) for s in [(2, 3, 8, 8), (2, 3, 6, 10)]]
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    f = jax.jit(lambda a, b, k: [kernels.conv2d_onednn(v, k, *args) for v in (a, b)])
    for _ in range(2):
        for got, v in zip(f(*xs, w), xs):
            ref = _reference(v.astype(np.float64), w.astype(np.float64), *args)
            np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)


def test_conv_lowering_chooses_onednn_for_float32_and_xla_otherwise():
    from flowjob._src.ops import _conv

    attrs = dict(
        strides=(1, 1), pads=((0, 0), (0, 0)), dilations=(1, 1), groups=1, data_format="NCHW"
    )
    # (input shape, weight shape, dtype, on oneDNN): 4 x 3 x 3 = 36 products per output
    # reach MIN_REDUCTION, one channel x 5 x 5 = 25 does not; oneDNN has no float64 kernels
    cases = [
        ((2, 4, 7, 7), (4, 4, 3, 3), np.float32, True),
        ((2, 4, 7, 7), (4, 4, 3, 3), np.float64, False),
        ((2, 1, 7, 7), (4, 1, 5, 5), np.float32, False),
    ]
    for xs, ws, dtype, expected in cases:
        text = (
            jax.jit(lambda a, b: _conv.lower_conv2d(a, b, **attrs))
            .lower(np.ones(xs, dtype), np.ones(ws, dtype))
            .as_text()
        )
        assert ("flowjob_onednn_conv" in text) is expected, (xs, ws, dtype)


def test_flowjob_conv2d_job_on_onednn_matches_xla_float64():
    import flowjob as flow
    import flowjob.typing as tp

    flow.clear_default_session()
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 10, 10)).astype(np.float32)
    w = rng.standard_normal((5, 3, 3, 3)).astype(np.float32)

    @flow.global_function()
    def job(
        a: tp.Numpy.Placeholder((2, 3, 10, 10)), k: tp.Numpy.Placeholder((5, 3, 3, 3))
    ) -> tp.Numpy:
        return flow.nn.conv2d(a, k, strides=2, padding="SAME")

    got = job(x, w)
    # OneFlow's SAME puts the odd padding element before the data
    ref = _reference(
        x.astype(np.float64), w.astype(np.float64), (2, 2), ((1, 0), (1, 0)), (1, 1), 1, "NCHW"
    )
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)
    flow.clear_default_session()


def test_a_program_traced_for_the_gpu_never_carries_the_onednn_call():
    # The custom call is a CPU-only FFI target: a GPU program takes XLA's convolution,
    # whichever backend JAX defaults to in the process that traces it.
    from flowjob._src.ops import _conv

    x = jnp.ones((2, 16, 8, 8), jnp.float32)
    w = jnp.ones((8, 16, 3, 3), jnp.float32)

    def program(platform):
        def step(x, w):
            with kernels.lowering_for(platform):
                y = _conv.lower_conv2d(
                    x,
                    w,
                    strides=(1, 1),
                    pads=((1, 1), (1, 1)),
                    dilations=(1, 1),
                    groups=1,
                    data_format="NCHW",
                )
            return jnp.sum(y * y)

        return jax.jit(jax.grad(step, argnums=(0, 1))).lower(x, w).as_text()

    assert "flowjob_onednn_conv" in program("cpu")
    gpu = program("gpu")
    assert "flowjob_onednn_conv" not in gpu and "stablehlo.convolution" in gpu
