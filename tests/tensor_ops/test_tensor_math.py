"""``tensor_ops/_unary.py``, ``_arith.py``, ``_matmul.py``: elementwise math, arithmetic and
matmul on eager tensors, values against NumPy and gradients against ``jax.grad``."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import flowjob.experimental as flow

RNG = np.random.default_rng(0)

# name -> (NumPy reference, jax.numpy twin for the gradient, input low, high)
UNARY = {
    "abs": (np.abs, jnp.abs, -2.0, 2.0),
    "exp": (np.exp, jnp.exp, -2.0, 2.0),
    "log": (np.log, jnp.log, 0.1, 3.0),
    "sqrt": (np.sqrt, jnp.sqrt, 0.1, 3.0),
    "rsqrt": (lambda x: 1 / np.sqrt(x), jax.lax.rsqrt, 0.1, 3.0),
    "square": (np.square, jnp.square, -2.0, 2.0),
    "reciprocal": (np.reciprocal, lambda x: 1 / x, 0.5, 3.0),
    "sin": (np.sin, jnp.sin, -3.0, 3.0),
    "cos": (np.cos, jnp.cos, -3.0, 3.0),
    "cosh": (np.cosh, jnp.cosh, -2.0, 2.0),
    "asin": (np.arcsin, jnp.arcsin, -0.9, 0.9),
    "asinh": (np.arcsinh, jnp.arcsinh, -3.0, 3.0),
}


def _uniform(low: float, high: float, *shape: int) -> np.ndarray:
    return RNG.uniform(low, high, shape).astype(np.float32)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_values_method_and_gradient(name):
    ref, jax_fn, low, high = UNARY[name]
    data = _uniform(low, high, 2, 3)
    x = flow.Tensor(data, requires_grad=True)
    y = getattr(flow, name)(x)
    np.testing.assert_allclose(y.numpy(), ref(data), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(getattr(x, name)().numpy(), ref(data), rtol=1e-5, atol=1e-6)
    y.sum().backward()
    want = jax.grad(lambda a: jax_fn(a).sum())(data)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-5, atol=1e-6)


def test_aliases_and_keyword_names_follow_oneflow():
    x = flow.Tensor([0.5, -0.25])
    assert flow.arcsin is flow.asin and flow.arcsinh is flow.asinh and flow.neg is flow.negative
    np.testing.assert_allclose(x.arcsin().numpy(), np.arcsin([0.5, -0.25]), rtol=1e-6)
    np.testing.assert_allclose(x.arcsinh().numpy(), np.arcsinh([0.5, -0.25]), rtol=1e-6)
    np.testing.assert_allclose(flow.sqrt(input=flow.Tensor([4.0])).numpy(), [2.0])
    np.testing.assert_allclose(flow.sin(tensor=flow.Tensor([0.0])).numpy(), [0.0])
    np.testing.assert_allclose(flow.exp(x=flow.Tensor([0.0])).numpy(), [1.0])


def test_reciprocal_is_zero_at_zero_and_log_is_nan_below_zero():
    np.testing.assert_array_equal(flow.reciprocal(flow.Tensor([0.0, 4.0])).numpy(), [0.0, 0.25])
    assert np.isnan(flow.log(flow.Tensor([-1.0])).numpy()).all()


def test_abs_builtin_and_negation_operator():
    x = flow.Tensor([-1.5, 2.0])
    np.testing.assert_array_equal(abs(x).numpy(), [1.5, 2.0])
    np.testing.assert_array_equal((-x).numpy(), [1.5, -2.0])


@pytest.mark.parametrize(
    "name, ref",
    [("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", np.divide)],
)
def test_arithmetic_broadcasts_and_takes_numbers_on_either_side(name, ref):
    fn = getattr(flow, name)
    a, b, one = _uniform(0.5, 2, 2, 3), _uniform(0.5, 2, 1, 3), _uniform(0.5, 2, 1)
    cases = [
        (fn(flow.Tensor(a), flow.Tensor(b)), ref(a, b)),
        (fn(flow.Tensor(a), flow.Tensor(one)), ref(a, one)),
        (fn(flow.Tensor(one), flow.Tensor(a)), ref(one, a)),
        (fn(flow.Tensor(a), 3), ref(a, 3)),
        (fn(2.5, flow.Tensor(a)), ref(2.5, a)),
        (getattr(flow.Tensor(a), name)(np.float64(1.5)), ref(a, 1.5)),
    ]
    for got, want in cases:
        assert got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


def test_python_operators_match_the_functions():
    a, b = _uniform(0.5, 2, 2, 3), _uniform(0.5, 2, 3)
    x, y = flow.Tensor(a), flow.Tensor(b)
    for got, want in [
        (x + y, a + b),
        (1 + x, 1 + a),
        (x - 1, a - 1),
        (1 - x, 1 - a),
        (x * y, a * b),
        (2 * x, 2 * a),
        (x / y, a / b),
        (1 / x, 1 / a),
        (x**2, a**2),
        (2**x, 2**a),
    ]:
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)


def test_broadcast_arithmetic_gradients_match_jax():
    a, b = _uniform(0.5, 2, 2, 3), _uniform(0.5, 2, 1, 3)
    x, y = flow.Tensor(a, requires_grad=True), flow.Tensor(b, requires_grad=True)
    z = (x * y - x / y + flow.pow(x, y)) * 3
    z.sum().backward()

    def f(p, q):
        return ((p * q - p / q + p**q) * 3).sum()

    gx, gy = jax.grad(f, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(x.grad.numpy(), gx, rtol=1e-5)
    np.testing.assert_allclose(y.grad.numpy(), gy, rtol=1e-5)
    assert y.grad.shape == (1, 3)


def test_scalar_pow_and_its_gradient():
    a = _uniform(0.5, 3, 4)
    x = flow.Tensor(a, requires_grad=True)
    y = x.pow(2.5)
    np.testing.assert_allclose(y.numpy(), a**2.5, rtol=1e-5)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2.5 * a**1.5, rtol=1e-5)


@pytest.mark.parametrize(
    "shape_a, shape_b",
    [((2, 6), (6, 5)), ((4, 2, 3), (4, 3, 5)), ((3, 2, 4), (4, 5)), ((2, 1, 2, 3), (3, 3, 2))],
)
def test_matmul_values_and_gradients(shape_a, shape_b):
    a, b = _uniform(-1, 1, *shape_a), _uniform(-1, 1, *shape_b)
    x, y = flow.Tensor(a, requires_grad=True), flow.Tensor(b, requires_grad=True)
    z = flow.matmul(x, y)
    np.testing.assert_allclose(z.numpy(), np.matmul(a, b), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose((x @ y).numpy(), np.matmul(a, b), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(x.matmul(y).numpy(), np.matmul(a, b), rtol=1e-5, atol=1e-6)
    (z * z).sum().backward()
    gx, gy = jax.grad(lambda p, q: (jnp.matmul(p, q) ** 2).sum(), argnums=(0, 1))(a, b)
    np.testing.assert_allclose(x.grad.numpy(), gx, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(y.grad.numpy(), gy, rtol=1e-4, atol=1e-5)


def test_bad_operands_name_the_function_and_argument():
    with pytest.raises(TypeError, match=r"flow\.exp: x must be a Tensor, got float"):
        flow.exp(3.0)
    with pytest.raises(TypeError, match=r"flow\.add: expected a tensor operand"):
        flow.add(1, 2)
    with pytest.raises(TypeError, match=r"flow\.mul: expected a tensor or a number, got list"):
        flow.mul(flow.Tensor([1.0]), [2.0])
    with pytest.raises(ValueError, match=r"flow\.matmul: b must have at least 2 dimensions"):
        flow.matmul(flow.Tensor(np.ones((2, 3))), flow.Tensor([1.0, 2.0, 3.0]))
    with pytest.raises(TypeError, match=r"flow\.matmul: b must be a Tensor"):
        flow.Tensor(np.ones((2, 2))) @ np.ones((2, 2))


def test_a_changing_number_beside_a_float_tensor_compiles_once():
    # `x * lr` with a new lr each step: the number is an input of the program, not a
    # constant compiled into it (each new constant was a new compile, ~50 ms)
    from flowjob._src.imperative import _dispatch

    x = flow.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3), requires_grad=True)
    (x * 0.5 - 1.0).sum()
    before = len(_dispatch._local_programs)
    for lr in (0.1, 0.2, 0.3, 7.5):
        y = x * lr - lr / 3
        np.testing.assert_allclose(y.numpy(), x.numpy() * lr - lr / 3, rtol=1e-6)
        y.sum().backward()
    assert len(_dispatch._local_programs) == before
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 3), 0.1 + 0.2 + 0.3 + 7.5), rtol=1e-6)
