"""Arithmetic and elementwise math with the cases OneFlow's suite checked (test_add,
test_add_n, test_multiply, test_broadcast_normal, test_broadcast_maximum/minimum,
test_elementwise_maximum_minimum, test_broadcast_logical_ops, test_binary_elementwise_ops,
test_scalar_by_tensor_ops/int, test_scalar_divide, test_scalar_pow, test_squared_difference,
test_mod, test_mod_int, test_clip_by_value, test_cast, test_count_not_finite, test_polyval,
test_l2_normalize): broadcasting shapes, scalar forms, float and integer dtypes, values and
gradients against jax.numpy."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parity_helpers import Case, run_cases, uniform

import flowjob as flow

BINARY = [
    ("add", flow.math.add, jnp.add),
    ("subtract", flow.math.subtract, jnp.subtract),
    ("multiply", flow.math.multiply, jnp.multiply),
    ("divide", flow.math.divide, jnp.divide),
    ("maximum", flow.math.maximum, jnp.maximum),
    ("minimum", flow.math.minimum, jnp.minimum),
    ("squared_difference", flow.math.squared_difference, lambda a, b: (a - b) ** 2),
]
# broadcasting pairs of test_broadcast_normal / test_add / test_multiply
SHAPES = [
    ((3, 1, 4, 1), (4, 1, 6)),
    ((3, 1, 4, 5, 1), (1, 4, 1, 1, 5)),
    ((3, 1, 4, 5, 1), (3, 4, 1, 1, 5)),
    ((5, 6), (1, 6)),
    ((5, 6), (5, 1)),
    ((4, 5, 6), (1, 5, 1)),
    ((4, 5, 6), (4, 1, 6)),
    ((6, 7), (6, 7)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_broadcast_binary_ops_value_and_gradients(dtype):
    cases = []
    # float64 takes the three pairs of test_broadcast_normal; float32 every pair (CI time)
    for i, (sa, sb) in enumerate(SHAPES if dtype == np.float32 else SHAPES[:3]):
        a, b = uniform(sa, -2, 2, dtype, seed=i), uniform(sb, -2, 2, dtype, seed=100 + i)
        b = np.where(np.abs(b) < 0.2, 0.5, b).astype(dtype)  # divide: away from zero
        for name, fn, ref in BINARY:
            cases.append(Case(f"{name} {sa} {sb}", fn, ref, [a, b], rtol=1e-5, atol=1e-5))
    run_cases(cases)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_integer_binary_ops_and_python_operators(dtype):
    a = np.random.default_rng(0).integers(-20, 20, (3, 1, 4, 1)).astype(dtype)
    b = np.random.default_rng(1).integers(1, 9, (4, 1, 6)).astype(dtype)
    b = b * np.where(np.random.default_rng(2).random(b.shape) < 0.5, -1, 1).astype(dtype)
    cases = [
        Case(name, fn, ref, [a, b], grad=False)
        for name, fn, ref in BINARY
        if name not in ("divide", "squared_difference")
    ]
    cases += [
        # OneFlow: integer division truncates toward zero, mod follows the divisor's sign
        Case(
            "divide",
            flow.math.divide,
            lambda x, y: jnp.trunc(x / y).astype(x.dtype),
            [a, b],
            grad=False,
        ),
        Case("mod", flow.math.mod, jnp.mod, [a, b], grad=False),
        Case("% operator", lambda x, y: x % y, jnp.mod, [a, b], grad=False),
    ]
    for name, op, ref in [
        ("==", lambda x, y: x == y, jnp.equal),
        ("!=", lambda x, y: x != y, jnp.not_equal),
        (">", lambda x, y: x > y, jnp.greater),
        (">=", lambda x, y: x >= y, jnp.greater_equal),
        ("<", lambda x, y: x < y, jnp.less),
        ("<=", lambda x, y: x <= y, jnp.less_equal),
        ("logical_and", flow.math.logical_and, jnp.logical_and),
    ]:
        # comparisons give int8 0/1 in OneFlow
        cases.append(
            Case(
                name,
                op,
                lambda x, y, ref=ref: ref(x, y).astype(jnp.int8),
                [a % 3, b % 3],
                grad=False,
            )
        )
    run_cases(cases)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logical_ops_on_floats_broadcast_and_return_int8(dtype):
    a = np.round(uniform((4, 6, 6), -2, 2, dtype, seed=3))
    b = np.round(uniform((1, 6, 1), -2, 2, dtype, seed=4))
    run_cases(
        [
            Case(name, op, lambda x, y, ref=ref: ref(x, y).astype(jnp.int8), [a, b], grad=False)
            for name, op, ref in [
                ("==", lambda x, y: x == y, jnp.equal),
                (">", lambda x, y: x > y, jnp.greater),
                ("<=", lambda x, y: x <= y, jnp.less_equal),
            ]
        ]
    )


def test_scalar_forms_pow_and_tensor_by_one_element_tensor():
    x = uniform((4, 5, 6), 0.5, 3.0, seed=5)
    y1 = np.array([1.7], np.float32)  # a (1,)-shaped tensor "scalar" (test_scalar_by_tensor)
    cases = [
        Case("x + 2", lambda v: v + 2, lambda v: v + 2, [x]),
        Case("3 - x", lambda v: 3 - v, lambda v: 3 - v, [x]),
        Case("x * 1.5", lambda v: v * 1.5, lambda v: v * 1.5, [x]),
        Case("x / 4", lambda v: v / 4, lambda v: v / 4, [x]),
        Case("2 / x", lambda v: 2 / v, lambda v: 2 / v, [x]),
        Case("add(x, scalar)", lambda v: flow.math.add(v, 5.0), lambda v: v + 5.0, [x]),
    ]
    for exponent in (0.5, 2.0, 3.0, -1.0):
        cases.append(
            Case(
                f"pow {exponent}",
                lambda v, e=exponent: flow.math.pow(v, e),
                lambda v, e=exponent: v**e,
                [x],
            )
        )
    for name, fn, ref in [
        ("add", flow.math.add, jnp.add),
        ("subtract", flow.math.subtract, jnp.subtract),
        ("multiply", flow.math.multiply, jnp.multiply),
        ("divide", flow.math.divide, jnp.divide),
    ]:
        cases.append(Case(f"{name} by (1,) tensor", fn, ref, [x, y1]))
    run_cases(cases)

    xi = np.random.default_rng(6).integers(-50, 50, (5, 6)).astype(np.int32)
    run_cases(
        [
            Case("int + 3", lambda v: v + 3, lambda v: v + 3, [xi], grad=False),
            Case("int * 3", lambda v: v * 3, lambda v: v * 3, [xi], grad=False),
            Case("int - 3", lambda v: v - 3, lambda v: v - 3, [xi], grad=False),
        ]
    )


def test_binary_math_functions():
    x = uniform((5, 5), 1, 5, seed=7)
    y = uniform((5, 5), 1, 5, seed=8)
    xs = uniform((5, 5), -10, 10, seed=9)
    run_cases(
        [
            Case("atan2", flow.math.atan2, jnp.arctan2, [xs, y]),
            Case("pow", flow.math.pow, jnp.power, [x, y], rtol=1e-4),
            Case("xdivy", flow.math.xdivy, lambda a, b: a / b, [x, y]),
            Case("xlogy", flow.math.xlogy, lambda a, b: a * jnp.log(b), [x, y]),
            Case("floordiv", flow.math.floordiv, jnp.floor_divide, [xs, y], grad=False),
        ]
    )


def test_add_n_of_2_to_16_and_100_inputs():
    cases = []
    for n in (2, 3, 5, 8, 16, 100):
        xs = [uniform((3, 4), seed=1000 * n + i) for i in range(n)]
        cases.append(
            Case(
                f"add_n {n}",
                lambda *b: flow.math.add_n(list(b)),
                lambda *a: sum(a[1:], a[0]),
                xs,
                rtol=1e-5,
                atol=1e-5,
            )
        )
    run_cases(cases)


def test_clip_by_value_min_max_and_both():
    x = uniform((4, 6), -3, 3, seed=11)
    x = np.where(np.abs(np.abs(x) - 1) < 0.05, 0.0, x).astype(np.float32)
    run_cases(
        [
            Case(
                "clip both",
                lambda v: flow.clip_by_value(v, -1.0, 1.0),
                lambda v: jnp.clip(v, -1, 1),
                [x],
            ),
            Case(
                "clip min",
                lambda v: flow.clip_by_value(v, min_value=-1.0),
                lambda v: jnp.maximum(v, -1),
                [x],
            ),
            Case(
                "clip max",
                lambda v: flow.clip_by_value(v, max_value=1.0),
                lambda v: jnp.minimum(v, 1),
                [x],
            ),
        ]
    )


def test_cast_between_dtypes_and_its_gradient():
    x = uniform((5, 4, 3), -100, 100, np.float32, seed=12)
    cases = [
        Case(
            "cast f32->f64",
            lambda v: flow.cast(v, flow.float64),
            lambda v: v.astype(jnp.float64),
            [x],
        )
    ]
    for dtype, np_dtype in [
        (flow.int8, np.int8),
        (flow.uint8, np.uint8),
        (flow.int32, np.int32),
        (flow.int64, np.int64),
    ]:
        source = np.abs(x) if np_dtype == np.uint8 else x
        cases.append(
            Case(
                f"cast ->{np_dtype.__name__}",
                lambda v, d=dtype: flow.cast(v, d),
                lambda v, t=np_dtype: v.astype(t),
                [source],
                grad=False,
            )
        )
    run_cases(cases)


def test_count_not_finite_polyval_and_l2_normalize():
    x = uniform((10, 30), seed=13).astype(np.float64)
    x[1, 2], x[4, 5], x[7, 7] = np.inf, -np.inf, np.nan
    x2 = uniform((4, 5), seed=14)
    x2[0, 0] = np.nan
    y = uniform((6, 5, 4, 3), -10, 10, seed=15)
    cases = [
        Case(
            "count_not_finite",
            flow.count_not_finite,
            lambda v: jnp.sum(~jnp.isfinite(v)).astype(jnp.int64).reshape(1),
            [x],
            grad=False,
        ),
        Case(
            "multi_count_not_finite",
            lambda a, b: flow.multi_count_not_finite([a, b]),
            lambda a, b: (
                (jnp.sum(~jnp.isfinite(a)) + jnp.sum(~jnp.isfinite(b))).astype(jnp.int64).reshape(1)
            ),
            [x, x2],
            grad=False,
        ),
    ]
    for coeffs in ([1.0, 2.0], [1.0, 2.0, 3.0], [0.5, -1.0, 0.0, 2.0]):
        cases.append(
            Case(
                f"polyval {coeffs}",
                lambda v, c=coeffs: flow.math.polyval(c, v),
                lambda v, c=coeffs: jnp.polyval(jnp.asarray(c, v.dtype), v),
                [x2 * 0 + uniform((4, 5), seed=16)],
            )
        )
    for axis in (-1, 0, 1, 2, 3):
        for eps in (1e-10, 1e-5):
            cases.append(
                Case(
                    f"l2_normalize axis {axis} eps {eps}",
                    lambda v, a=axis, e=eps: flow.math.l2_normalize(v, axis=a, epsilon=e),
                    lambda v, a=axis, e=eps: (
                        v / jnp.sqrt(jnp.maximum(jnp.sum(v * v, axis=a, keepdims=True), e))
                    ),
                    [y],
                    rtol=1e-5,
                    atol=1e-5,
                )
            )
    run_cases(cases)


@st.composite
def broadcast_pairs(draw):
    """Two shapes of rank 1..4 that broadcast together (each axis: equal, or one side 1,
    or missing on the shorter shape)."""
    rank = draw(st.integers(1, 4))
    full = draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank))
    a, b = [], []
    for size in full:
        kind = draw(st.sampled_from(["both", "a1", "b1"]))
        a.append(1 if kind == "a1" else size)
        b.append(1 if kind == "b1" else size)
    drop = draw(st.integers(0, rank - 1))  # numpy-style: the shorter shape aligns right
    return tuple(a), tuple(b[drop:])


@settings(max_examples=2, deadline=None, derandomize=True)
@given(pairs=st.lists(broadcast_pairs(), min_size=5, max_size=5))
def test_random_broadcast_shapes_for_every_binary_op(pairs):
    # five shape pairs per example, all in one job
    cases = []
    for i, (sa, sb) in enumerate(pairs):
        a, b = uniform(sa, -2, 2, seed=i), uniform(sb, 0.5, 2, seed=50 + i)
        cases += [Case(f"{name} {sa} {sb}", fn, ref, [a, b]) for name, fn, ref in BINARY]
    run_cases(cases)
