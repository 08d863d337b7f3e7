"""``flowjob/_src/ops/_reduce.py``: reductions, counts and element counts."""

from __future__ import annotations

import numpy as np
import pytest
from ops_helpers import numeric_grad, uniform, value_and_grads

import flowjob as flow
import flowjob.typing as tp

REDUCE = {
    "reduce_euclidean_norm": lambda x, a, k: np.sqrt(np.sum(x * x, axis=a, keepdims=k)),
    "reduce_logsumexp": lambda x, a, k: np.log(np.sum(np.exp(x), axis=a, keepdims=k)),
    "reduce_std": lambda x, a, k: np.std(x, axis=a, keepdims=k),
    "reduce_variance": lambda x, a, k: np.var(x, axis=a, keepdims=k),
}


def test_counts_reshape_like_elem_cnt_and_random_mask():
    x = np.array([[1.0, np.inf, 2.0], [np.nan, -np.inf, 0.0]], np.float32)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Bundle[tp.Numpy]:
        y = flow.amp_white_identity(x)
        return {
            "count": flow.count_not_finite(x),
            "multi": flow.multi_count_not_finite([x, flow.zeros((4,))]),
            "reshaped": flow.reshape_like(y, flow.zeros((3, 2))),
            "cnt": flow.math.reduced_shape_elem_cnt(x, axis=[1], dtype=flow.float32),
            "mask": flow.nn.random_mask_like(flow.zeros((200, 50)), 0.3),
        }

    out = job(x)
    assert out["count"].tolist() == [3] and out["count"].dtype == np.int64
    assert out["multi"].tolist() == [3]
    np.testing.assert_array_equal(out["reshaped"], x.reshape(3, 2))
    assert out["cnt"].tolist() == [3.0] and out["cnt"].dtype == np.float32
    assert out["mask"].dtype == np.int8 and 0.65 < out["mask"].mean() < 0.75


def test_reductions_over_axis_forms():
    x = uniform(2, 3, 4, low=0.5, high=1.5)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3, 4))) -> tp.Bundle[tp.Numpy]:
        assert flow.math.reduce_sum(x, axis=[]) is x  # an empty axis list reduces nothing
        return {
            "sum_all": flow.math.reduce_sum(x),
            "sum_1": flow.math.reduce_sum(x, axis=1),
            "sum_neg_keep": flow.math.reduce_sum(x, axis=-1, keepdims=True),
            "mean_02": flow.math.reduce_mean(x, axis=[0, 2]),
            "max_t": flow.math.reduce_max(x, axis=(1, 2)),
            "min_0": flow.math.reduce_min(x, axis=0),
            "prod_2": flow.math.reduce_prod(x, axis=2),
            "var_keep": flow.math.reduce_variance(x, axis=[1], keepdims=True),
        }

    got = job(x)
    want = {
        "sum_all": x.sum().reshape(1),
        "sum_1": x.sum(1),
        "sum_neg_keep": x.sum(-1, keepdims=True),
        "mean_02": x.mean((0, 2)),
        "max_t": x.max((1, 2)),
        "min_0": x.min(0),
        "prod_2": x.prod(2),
        "var_keep": x.var(1, keepdims=True),
    }
    for k, w in want.items():
        assert got[k].shape == np.shape(w), k  # OneFlow: a full reduction has shape (1,)
        np.testing.assert_allclose(got[k], w, rtol=1e-5, err_msg=k)


@pytest.mark.parametrize("name", sorted(REDUCE))
@pytest.mark.parametrize("axis,keepdims", [(1, False), ([0, 2], True), (None, False)])
def test_float_reductions_value_and_gradient(name, axis, keepdims):
    x = np.random.default_rng(2).uniform(-1.5, 1.5, (2, 3, 4))
    ref = REDUCE[name]
    a = tuple(axis) if isinstance(axis, list) else axis
    value, (g,), c = value_and_grads(
        lambda b: getattr(flow.math, name)(b, axis=axis, keepdims=keepdims), x
    )
    want = ref(x, a, keepdims)
    assert value.shape == (want.shape or (1,))  # OneFlow: a full reduction has shape (1,)
    np.testing.assert_allclose(value.reshape(want.shape), want, rtol=1e-10)
    np.testing.assert_allclose(
        g,
        numeric_grad(lambda v: ref(v, a, keepdims).reshape(value.shape), [x], c)[0],
        rtol=1e-5,
        atol=1e-7,
    )


def test_logsumexp_is_stable_for_large_inputs():
    x = np.array([[1000.0, 1000.0], [-1000.0, 0.0]], np.float32)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 2))) -> tp.Numpy:
        return flow.math.reduce_logsumexp(x, axis=1)

    np.testing.assert_allclose(job(x), [1000 + np.log(2), 0.0], rtol=1e-6)


def test_any_all_keep_dtype_and_empty_axis_forms():
    x = np.array([[0, 1, 0], [0, 0, 0], [2, 3, 1]], np.int8)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3, 3), dtype=flow.int8)) -> tp.Bundle[tp.Numpy]:
        return {
            "any1": flow.math.reduce_any(x, axis=1),
            "all1": flow.math.reduce_all(x, axis=1),
            "any": flow.math.reduce_any(x),
            "all_keep": flow.math.reduce_all(x, keepdims=True),
            "any_none": flow.math.reduce_any(x, axis=[]),
            "all_none": flow.math.reduce_all(x, axis=[]),
        }

    out = job(x)
    np.testing.assert_array_equal(out["any1"], np.any(x, axis=1).astype(np.int8))
    np.testing.assert_array_equal(out["all1"], np.all(x, axis=1).astype(np.int8))
    assert out["any1"].dtype == np.int8
    assert out["any"].shape == (1,) and out["any"][0] == 1
    assert out["all_keep"].shape == (1, 1) and out["all_keep"][0, 0] == 0
    np.testing.assert_array_equal(out["any_none"], (x != 0).astype(np.int8))
    np.testing.assert_array_equal(out["all_none"], (x != 0).astype(np.int8))


def test_empty_axis_list_variance_std_are_zeros_and_full_reductions_are_shape_1():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Bundle[tp.Numpy]:
        return {
            "var": flow.math.reduce_variance(x, axis=[]),
            "std": flow.math.reduce_std(x, axis=[]),
            "sum": flow.math.reduce_sum(x),
            "mean": flow.math.reduce_mean(x, axis=[0, 1]),
            "max_keep": flow.math.reduce_max(x, keepdims=True),
            "argmax": flow.math.argmax(flow.reshape(x, (6,))),
        }

    out = job(x)
    np.testing.assert_array_equal(out["var"], np.zeros((2, 3)))
    np.testing.assert_array_equal(out["std"], np.zeros((2, 3)))
    assert out["sum"].shape == (1,) and out["sum"][0] == 15
    assert out["mean"].shape == (1,) and out["mean"][0] == 2.5
    assert out["max_keep"].shape == (1, 1)
    assert out["argmax"].shape == (1,) and out["argmax"][0] == 5


@pytest.mark.parametrize(
    "name, np_fn", [("two_stage_reduce_max", np.max), ("two_stage_reduce_min", np.min)]
)
def test_two_stage_reductions_match_numpy_and_jax_grad(name, np_fn):
    import jax
    import jax.numpy as jnp

    x = np.round(uniform(3, 4, 5, seed=3), 1).astype(np.float64)  # rounding makes ties
    op = getattr(flow.math, name)
    value, (grad,), cot = value_and_grads(lambda b: op(b, axis=[0, 2], keepdims=True), x)
    np.testing.assert_array_equal(value, np_fn(x, axis=(0, 2), keepdims=True))
    jnp_fn = {np.max: jnp.max, np.min: jnp.min}[np_fn]
    want = jax.grad(lambda a: (jnp_fn(a, axis=(0, 2), keepdims=True) * cot).sum())(x)
    np.testing.assert_allclose(grad, want, rtol=1e-12)
