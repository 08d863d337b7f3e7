"""``flowjob/_src/ops/_binary.py``: elementwise binary arithmetic, comparisons and float math."""

from __future__ import annotations

from typing import Tuple

import numpy as np
import pytest
from ops_helpers import numeric_grad, uniform, value_and_grads

import flowjob as flow
import flowjob.typing as tp

BINARY = {
    "atan2": np.arctan2,
    "xdivy": lambda x, y: np.where(x == 0, 0.0, x / np.where(x == 0, 1.0, y)),
    "xlogy": lambda x, y: np.where(x == 0, 0.0, x * np.log(np.where(x == 0, 1.0, y))),
}


def test_binary_arithmetic_broadcasts_and_takes_constants_on_either_side():
    a, b, c = uniform(2, 3), uniform(3, seed=1, low=0.5), uniform(2, 1, seed=2)
    const = np.array([1.0, -2.0, 3.0])  # float64 on purpose: must not promote the blob

    @flow.global_function()
    def job(
        a: tp.Numpy.Placeholder((2, 3)),
        b: tp.Numpy.Placeholder((3,)),
        c: tp.Numpy.Placeholder((2, 1)),
    ) -> Tuple[(tp.Numpy,) * 16]:
        return (
            flow.math.add(a, b),
            flow.math.subtract(a, c),
            flow.math.multiply(b, c),
            flow.math.divide(a, b),
            a + 1.5,
            2 - a,
            a * const,
            3.0 / b,
            a**2,
            2**b,
            flow.math.floor_mod(a, 0.75),
            flow.math.maximum(a, b),
            flow.math.minimum(a, c),
            -a,
            abs(a),
            const - a,
        )

    out = job(a, b, c)
    expected = (
        a + b,
        a - c,
        b * c,
        a / b,
        a + 1.5,
        2 - a,
        a * const,
        3.0 / b,
        a**2,
        2**b,
        np.mod(a, 0.75),
        np.maximum(a, b),
        np.minimum(a, c),
        -a,
        np.abs(a),
        const - a,
    )
    for i, (got, want) in enumerate(zip(out, expected)):
        assert got.dtype == np.float32, i
        assert got.shape == np.broadcast(want).shape, i
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=f"output {i}")


def test_integer_division_truncates_and_mod_floors():
    x = np.array([-7, 7, -8, 9], np.int32)
    y = np.array([2, -2, 3, 4], np.int32)

    @flow.global_function()
    def job(
        x: tp.Numpy.Placeholder((4,), dtype=flow.int32),
        y: tp.Numpy.Placeholder((4,), dtype=flow.int32),
    ) -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        return x / y, x % y, x * 3

    div, mod, mul = job(x, y)
    assert div.dtype == np.int32 and mod.dtype == np.int32 and mul.dtype == np.int32
    np.testing.assert_array_equal(div, np.trunc(x / y).astype(np.int32))
    np.testing.assert_array_equal(mod, np.mod(x, y))
    np.testing.assert_array_equal(mul, x * 3)


def test_comparisons_return_int8():
    a, b = np.array([[1, 2, 3]], np.float32), np.array([[1], [3]], np.float32)

    @flow.global_function()
    def job(
        a: tp.Numpy.Placeholder((1, 3)), b: tp.Numpy.Placeholder((2, 1))
    ) -> Tuple[(tp.Numpy,) * 8]:
        return (
            a == b,
            a != b,
            a < b,
            a <= b,
            a > b,
            a >= b,
            a > 1.5,
            flow.math.logical_and(a > 1, b > 1),
        )

    got = job(a, b)
    want = (a == b, a != b, a < b, a <= b, a > b, a >= b, a > 1.5, (a > 1) & (b > 1))
    for g, w in zip(got, want):
        assert g.dtype == np.int8
        np.testing.assert_array_equal(g, w.astype(np.int8))


def test_float_constants_meeting_integer_blobs_give_float32():
    x = np.array([1, 2, 3], np.int32)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3,), dtype=flow.int32)) -> Tuple[(tp.Numpy,) * 4]:
        return x * 0.5, x + 1, x**0.5, flow.math.clip_by_value(x, 1.7, 2.2)

    half, plus, root, clipped = job(x)
    assert half.dtype == np.float32 and plus.dtype == np.int32 and root.dtype == np.float32
    np.testing.assert_allclose(half, x * 0.5)
    np.testing.assert_array_equal(plus, x + 1)
    np.testing.assert_allclose(root, np.sqrt(x), rtol=1e-6)
    assert clipped.dtype == np.int32 and clipped.tolist() == [1, 2, 2]  # integral bounds 1, 2


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_math_value_and_gradients(name):
    rng = np.random.default_rng(1)
    x = rng.uniform(-2, 2, (2, 5))
    y = rng.uniform(0.5, 2, (2, 5))
    if name != "atan2":
        x[0, 0] = 0.0
    ref = BINARY[name]
    value, (gx, gy), c = value_and_grads(getattr(flow.math, name), x, y)
    np.testing.assert_allclose(value, ref(x, y), rtol=1e-12)
    nx, ny = numeric_grad(ref, [x, y], c)
    if name != "atan2":
        nx[0, 0] = 0.0  # OneFlow's kernels: no gradient for x where x == 0
    np.testing.assert_allclose(gx, nx, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(gy, ny, rtol=1e-5, atol=1e-7)


def test_xdivy_xlogy_give_zero_not_nan_where_x_is_zero():
    x = np.array([0.0, 0.0, 2.0])
    y = np.array([0.0, -1.0, 4.0])
    for name in ("xdivy", "xlogy"):
        value, (gx, gy), _ = value_and_grads(getattr(flow.math, name), x, y)
        assert value[0] == 0 and value[1] == 0, name
        assert np.all(np.isfinite(gx[:2])) and np.all(gy[:2] == 0), (name, gx, gy)


def test_floordiv_value_and_zero_gradient():
    x = np.array([[4.0, -3.0, 5.5], [-7.0, 7.0, 0.5]])
    y = np.array([[3.0, 2.0, 2.0], [2.0, -2.0, 0.25]])
    value, (gx, gy), _ = value_and_grads(flow.math.floordiv, x, y)
    np.testing.assert_array_equal(value, np.floor(x / y))
    assert not gx.any() and not gy.any()
