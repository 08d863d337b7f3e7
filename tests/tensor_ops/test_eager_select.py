"""gather, masked_fill, where and argwhere on eager tensors: values against NumPy, gradients
against jax.grad of the same computation in jax.numpy."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import flowjob.experimental as fx

RNG = np.random.default_rng(2)


def _x(*shape):
    return RNG.normal(size=shape).astype(np.float32)


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_gather_matches_take_along_axis_with_its_gradient(dim):
    a = _x(3, 4, 5)
    index_shape = list(a.shape)
    index_shape[dim] = 6  # longer than the axis: indices repeat
    index = RNG.integers(0, a.shape[dim], size=index_shape)
    w = _x(*index_shape)
    x = fx.Tensor(a, requires_grad=True)
    out = fx.gather(x, fx.Tensor(index, dtype=fx.int32), dim=dim)
    np.testing.assert_array_equal(out.numpy(), np.take_along_axis(a, index, dim))
    (out * fx.Tensor(w)).sum().backward()
    want = jax.grad(lambda v: jnp.sum(jnp.take_along_axis(v, index, dim) * w))(jnp.asarray(a))
    np.testing.assert_allclose(x.grad.numpy(), np.asarray(want), rtol=1e-6, atol=1e-6)


def test_gather_method_and_int64_index():
    x = fx.Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    index = fx.tensor([[0, 0], [1, 0]])  # int64
    assert x.gather(index, dim=1).tolist() == [[1.0, 1.0], [4.0, 3.0]]
    with pytest.raises(IndexError, match="flow.gather: dim=2"):
        x.gather(index, dim=2)


def test_masked_fill_values_and_gradient():
    a = _x(2, 3, 4)
    mask = (a > 0).astype(np.int8)
    x = fx.Tensor(a, requires_grad=True)
    out = x.masked_fill(fx.Tensor(mask, dtype=fx.int8), value=8.75)
    np.testing.assert_array_equal(out.numpy(), np.where(mask, np.float32(8.75), a))
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 1 - mask)
    row = fx.Tensor(np.array([1, 0, 0, 1]), dtype=fx.int32)  # broadcast over the first axes
    np.testing.assert_array_equal(
        fx.masked_fill(fx.Tensor(a), row, -1).numpy(), np.where([1, 0, 0, 1], -1, a)
    )


def test_where_broadcasts_and_splits_the_gradient():
    c = RNG.integers(0, 2, size=(1, 3, 2))
    a, b = _x(1, 3, 2), _x(4, 3, 1)
    w = _x(4, 3, 2)
    x, y = fx.Tensor(a, requires_grad=True), fx.Tensor(b, requires_grad=True)
    out = fx.where(fx.Tensor(c, dtype=fx.int32), x, y)
    np.testing.assert_array_equal(out.numpy(), np.where(c != 0, a, b))
    (out * fx.Tensor(w)).sum().backward()
    f = lambda p, q: jnp.sum(jnp.where(c != 0, p, q) * w)  # noqa: E731
    gx, gy = jax.grad(f, argnums=(0, 1))(jnp.asarray(a), jnp.asarray(b))
    np.testing.assert_allclose(x.grad.numpy(), np.asarray(gx), rtol=1e-6)
    np.testing.assert_allclose(y.grad.numpy(), np.asarray(gy), rtol=1e-6)


def test_where_with_numbers_and_as_a_method():
    c = fx.Tensor(np.array([1, 0, 1]), dtype=fx.int32)
    x = fx.Tensor(np.array([1.0, 2.0, 3.0]), dtype=fx.float64)
    assert fx.where(c, 0.5, 2.0).tolist() == [0.5, 2.0, 0.5]
    assert fx.where(c, 0.5, 2.0).dtype is fx.float32
    out = fx.where(c, x, 0)
    assert out.dtype is fx.float64 and out.tolist() == [1.0, 0.0, 3.0]
    assert c.where(-1, x).tolist() == [-1.0, 2.0, -1.0]
    with pytest.raises(TypeError, match="flow.where: y must be a tensor or a number"):
        fx.where(c, x, "a")


@pytest.mark.parametrize("shape", [(2, 3), (2, 4, 5, 6), (7,)])
def test_argwhere_matches_numpy(shape):
    a = RNG.normal(size=shape).astype(np.float32)
    a[a < 0.3] = 0
    out = fx.argwhere(fx.Tensor(a))
    assert out.dtype is fx.int32
    np.testing.assert_array_equal(out.numpy(), np.argwhere(a))
    method = fx.Tensor(a).argwhere(dtype=fx.int64)
    assert method.dtype is fx.int64 and method.shape == (np.count_nonzero(a), len(shape))


def test_argwhere_of_all_zeros_is_empty():
    assert fx.argwhere(fx.Tensor(np.zeros((2, 3), np.float32))).shape == (0, 2)
