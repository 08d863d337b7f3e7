"""Linear, Conv2d, pooling, Dropout, Embedding and Upsample: shapes, initial draws, values
and gradients against NumPy / jax.grad references."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import flowjob.experimental as flow
from flowjob._src.tensor_ops import conv2d, linear
from tests.nn_modules._ref import forward_backward

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("shape", [(4, 3), (2, 5, 3)])
def test_linear_values_and_gradients(shape):
    w, b = RNG.normal(size=(6, 3)), RNG.normal(size=6)
    x = RNG.normal(size=shape)
    out, cot, grads = forward_backward(linear, x, w, b)
    ref = lambda x, w, b: jnp.sum((x @ w.T + b) * cot)  # noqa: E731
    np.testing.assert_allclose(out, x @ w.T + b, rtol=1e-6)
    for got, want in zip(grads, jax.grad(ref, argnums=(0, 1, 2))(x, w, b)):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    m = flow.nn.Linear(3, 6)  # the module runs the same function with its parameters
    m.weight.data, m.bias.data = flow.Tensor(w), flow.Tensor(b)
    np.testing.assert_allclose(m(flow.Tensor(x)).numpy(), x @ w.T + b, rtol=1e-5, atol=1e-5)


def test_linear_initial_draws_are_kaiming_uniform_with_a_sqrt5():
    m = flow.nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)  # sqrt(3) * gain(leaky_relu, sqrt(5)) / sqrt(fan_in)
    weight, bias = m.weight.numpy(), m.bias.numpy()
    assert weight.shape == (300, 400) and bias.shape == (300,)
    assert np.abs(weight).max() <= bound and np.abs(weight).max() > 0.99 * bound
    assert abs(weight.std() - bound / math.sqrt(3)) < 0.01 * bound
    assert np.abs(bias).max() <= bound and bias.std() > 0.4 * bound
    assert flow.nn.Linear(2, 3, bias=False).bias is None
    assert [n for n, _ in flow.nn.Linear(2, 3).named_parameters()] == ["weight", "bias"]


def _conv_ref(x, w, b, stride, padding, dilation, groups):
    out = jax.lax.conv_general_dilated(
        x, w, stride, [(p, p) for p in padding], rhs_dilation=dilation,
        feature_group_count=groups, dimension_numbers=("NCHW", "OIHW", "NCHW"),
    )  # fmt: skip
    return out + b[None, :, None, None]


@pytest.mark.parametrize(
    ("stride", "padding", "dilation", "groups"),
    [((1, 1), (0, 0), (1, 1), 1), ((2, 1), (1, 2), (1, 1), 2), ((1, 1), (2, 2), (2, 2), 4)],
)
def test_conv2d_values_and_gradients(stride, padding, dilation, groups):
    m = flow.nn.Conv2d(4, 8, (3, 2), stride, padding, dilation, groups)
    assert tuple(m.weight.shape) == (8, 4 // groups, 3, 2)
    x = RNG.normal(size=(2, 4, 7, 6))
    w, b = RNG.normal(size=(8, 4 // groups, 3, 2)), RNG.normal(size=8)
    m.weight.data = flow.Tensor(w)
    m.bias.data = flow.Tensor(b)
    out, cot, grads = forward_backward(
        lambda x, w, b: conv2d(x, w, b, stride, padding, dilation, groups), x, w, b
    )
    args = (stride, padding, dilation, groups)
    np.testing.assert_allclose(out, _conv_ref(x, w, b, *args), rtol=1e-6, atol=1e-9)
    ref = lambda x, w, b: jnp.sum(_conv_ref(x, w, b, *args) * cot)  # noqa: E731
    for got, want in zip(grads, jax.grad(ref, argnums=(0, 1, 2))(x, w, b)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
    # the module runs the same function with its parameters (float32)
    y = m(flow.Tensor(x))
    np.testing.assert_allclose(y.numpy(), _conv_ref(x, w, b, *args), rtol=1e-4, atol=1e-4)


def test_conv2d_initial_bounds_use_the_receptive_field():
    m = flow.nn.Conv2d(16, 32, 3)
    bound = 1 / math.sqrt(16 * 9)
    assert np.abs(m.weight.numpy()).max() <= bound and np.abs(m.bias.numpy()).max() <= bound
    assert np.abs(m.weight.numpy()).max() > 0.95 * bound


def _pool_ref(x, k, s, p, op):
    init = -np.inf if op == "max" else 0.0
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])), constant_values=init)
    count = np.pad(np.ones_like(x), ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    oh = (xp.shape[2] - k[0]) // s[0] + 1
    ow = (xp.shape[3] - k[1]) // s[1] + 1
    out = np.empty(x.shape[:2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = np.s_[:, :, i * s[0] : i * s[0] + k[0], j * s[1] : j * s[1] + k[1]]
            if op == "max":
                out[:, :, i, j] = xp[win].max(axis=(2, 3))
            else:
                out[:, :, i, j] = xp[win].sum(axis=(2, 3)) / count[win].sum(axis=(2, 3))
    return out


@pytest.mark.parametrize("op", ["max", "avg"])
@pytest.mark.parametrize(("k", "s", "p"), [((2, 2), None, (0, 0)), ((3, 2), (2, 1), (1, 1))])
def test_pooling_values_and_gradients(op, k, s, p):
    cls = flow.nn.MaxPool2d if op == "max" else flow.nn.AvgPool2d
    m = cls(k, s, p)
    x = RNG.normal(size=(2, 3, 7, 6))
    out, cot, (grad,) = forward_backward(m, x)
    np.testing.assert_allclose(out, _pool_ref(x, k, s or k, p, op), rtol=1e-6)
    # the gradient of sum(out * cot) by finite differences in a few places
    for idx in [(0, 0, 0, 0), (1, 2, 3, 4), (0, 1, 6, 5)]:
        step = np.zeros_like(x)
        step[idx] = 1e-6
        fd = (_pool_ref(x + step, k, s or k, p, op) * cot).sum()
        fd -= (_pool_ref(x - step, k, s or k, p, op) * cot).sum()
        np.testing.assert_allclose(grad[idx], fd / 2e-6, rtol=1e-4, atol=1e-6)


def test_pool_settings_v04_rejected_are_rejected():
    with pytest.raises(ValueError, match="return_indices"):
        flow.nn.MaxPool2d(2, return_indices=True)
    with pytest.raises(ValueError, match="count_include_pad"):
        flow.nn.AvgPool2d(2, count_include_pad=True)


def test_dropout_scales_kept_values_and_routes_gradients_through_the_mask():
    m = flow.nn.Dropout(p=0.25)
    x = flow.Tensor(np.ones((200, 50)), requires_grad=True)
    y = m(x)
    values = y.numpy()
    assert set(np.unique(values)) <= {0.0, np.float32(1 / 0.75)}
    assert abs((values == 0).mean() - 0.25) < 0.02
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), values)  # d/dx of x * mask * scale
    assert not np.array_equal(m(x).numpy(), values)  # a new draw per call
    m.eval()
    assert m(x) is x
    np.testing.assert_array_equal(flow.nn.Dropout(p=1.0)(x).numpy(), np.zeros((200, 50)))
    with pytest.raises(ValueError, match="between 0 and 1"):
        flow.nn.Dropout(p=1.5)


def test_embedding_gathers_rows_and_accumulates_repeated_gradients():
    m = flow.nn.Embedding(5, 3)
    w = RNG.normal(size=(5, 3)).astype(np.float32)
    m.weight.copy_(w)
    idx = np.array([[0, 2, 2], [4, 0, 2]], np.int64)
    y = m(flow.tensor(idx))
    np.testing.assert_array_equal(y.numpy(), w[idx])
    y.sum().backward()
    np.testing.assert_array_equal(m.weight.grad.numpy()[:, 0], [2, 0, 3, 0, 1])


def test_embedding_draws_normal_and_zeroes_the_padding_row():
    m = flow.nn.Embedding(300, 200, padding_idx=-1)
    assert m.padding_idx == 299
    values = m.weight.numpy()
    assert np.all(values[299] == 0)
    assert abs(values[:299].std() - 1) < 0.02 and abs(values[:299].mean()) < 0.02
    with pytest.raises(ValueError, match="max_norm"):
        flow.nn.Embedding(3, 2, max_norm=1.0)
    with pytest.raises(TypeError, match="integers"):
        m(flow.Tensor([1.0]))


def _bilinear_aligned(x, oh, ow):
    h, w = x.shape[2:]
    ys, xs = np.linspace(0, h - 1, oh), np.linspace(0, w - 1, ow)
    y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
    y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    fy, fx = (ys - y0)[:, None], (xs - x0)[None, :]
    top = x[..., y0, :][..., x0] * (1 - fx) + x[..., y0, :][..., x1] * fx
    bottom = x[..., y1, :][..., x0] * (1 - fx) + x[..., y1, :][..., x1] * fx
    return top * (1 - fy) + bottom * fy


def test_upsampling_nearest_and_bilinear():
    x = RNG.normal(size=(1, 2, 3, 4)).astype(np.float32)
    near = flow.nn.UpsamplingNearest2d(scale_factor=2)(flow.Tensor(x)).numpy()
    np.testing.assert_array_equal(near, x.repeat(2, axis=2).repeat(2, axis=3))
    sized = flow.nn.Upsample(size=(6, 12))(flow.Tensor(x)).numpy()
    np.testing.assert_array_equal(sized, x.repeat(2, axis=2).repeat(3, axis=3))
    odd = flow.nn.Upsample(size=(61, 9))(flow.Tensor(np.ones((1, 1, 7, 4), np.float32)))
    assert tuple(odd.shape) == (1, 1, 61, 9)  # 7 * (61 / 7) rounds below 61
    bil = flow.nn.UpsamplingBilinear2d(scale_factor=2)(flow.Tensor(x)).numpy()
    np.testing.assert_allclose(bil, _bilinear_aligned(x, 6, 8), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="align_corners"):
        flow.nn.Upsample(scale_factor=2, align_corners=True)
