"""``tensor_ops/_compare.py``: eq/equal, gt, lt and the ``>``/``<`` operators on eager
tensors: int8 results of 1/0 against NumPy's comparisons, broadcasting, number operands."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import flowjob.experimental as flow

A = np.array([[1.0, 2.0, 3.0], [4.0, 2.0, 0.0]], np.float32)
B = np.array([2.0, 2.0, 1.0], np.float32)

COMPARE = {"eq": np.equal, "gt": np.greater, "lt": np.less}


@pytest.mark.parametrize("name", sorted(COMPARE))
def test_comparisons_broadcast_and_give_int8(name):
    ref = COMPARE[name]
    for got in (
        getattr(flow, name)(flow.Tensor(A), flow.Tensor(B)),
        getattr(flow.Tensor(A), name)(flow.Tensor(B)),
    ):
        assert got.dtype == flow.int8 and got.shape == (2, 3)
        np.testing.assert_array_equal(got.numpy(), ref(A, B).astype(np.int8))


@pytest.mark.parametrize("name", sorted(COMPARE))
@pytest.mark.parametrize("scalar", [2, 2.5, np.float64(2.0)])
def test_number_operands_compare_without_truncation(name, scalar):
    ints = np.array([1, 2, 3], np.int32)
    for data in (A, ints):
        got = getattr(flow, name)(
            flow.Tensor(data, dtype=flow.int32 if data is ints else None), scalar
        )
        assert got.dtype == flow.int8
        np.testing.assert_array_equal(got.numpy(), COMPARE[name](data, float(scalar)))


def test_operators_greater_and_less_and_their_reflections():
    x = flow.Tensor(A)
    np.testing.assert_array_equal((x > flow.Tensor(B)).numpy(), A > B)
    np.testing.assert_array_equal((x < 2).numpy(), A < 2)
    np.testing.assert_array_equal((2 < x).numpy(), 2 < A)  # Python reflects to x > 2
    np.testing.assert_array_equal((2.5 > x).numpy(), 2.5 > A)
    assert flow.equal is flow.eq


def test_equality_stays_identity_and_ordering_operators_are_absent_as_in_oneflow():
    x, y = flow.Tensor(A), flow.Tensor(A)
    assert x == x and x != y and len({x, y}) == 2  # hashable: Module code keys dicts by tensor
    for op in (operator.ge, operator.le):
        with pytest.raises(TypeError):
            op(x, y)


def test_bad_comparison_operands_are_named():
    with pytest.raises(TypeError, match=r"flow\.gt: x must be a Tensor, got int"):
        flow.gt(1, 2)
    with pytest.raises(TypeError, match=r"flow\.eq: expected a tensor or a number, got list"):
        flow.eq(flow.Tensor(A), [1.0])
