"""Reductions, ordering and normalizing functions with the cases OneFlow's suite checked
(test_argmax, test_argsort, test_sort, test_top_k, test_in_top_k, test_reduce_mean,
test_moments, test_softmax, test_logsoftmax): every axis, both directions, float and integer
dtypes, keepdims, values and gradients against jax.numpy."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from parity_helpers import Case, run_cases, uniform

import flowjob as flow


def distinct(shape, dtype, seed):
    """Values without ties (so orders and argmax are unambiguous)."""
    values = np.random.default_rng(seed).permutation(int(np.prod(shape))) - 50
    return values.reshape(shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_argmax_sort_argsort_top_k_over_every_axis(dtype):
    x = distinct((4, 5, 6), dtype, seed=1)
    v = distinct((12,), dtype, seed=2)
    cases = []
    for axis in (-1, -2, 0, 1, 2):
        cases.append(
            Case(
                f"argmax {axis}",
                lambda a, ax=axis: flow.math.argmax(a, axis=ax),
                lambda a, ax=axis: jnp.argmax(a, axis=ax).astype(jnp.int32),
                [x],
                grad=False,
            )
        )
        for direction in ("ASCENDING", "DESCENDING"):
            sign = 1 if direction == "ASCENDING" else -1
            cases.append(
                Case(
                    f"sort {axis} {direction}",
                    lambda a, ax=axis, d=direction: flow.sort(a, axis=ax, direction=d),
                    lambda a, ax=axis, s=sign: s * jnp.sort(s * a, axis=ax),
                    [x],
                    grad=False,
                )
            )
            cases.append(
                Case(
                    f"argsort {axis} {direction}",
                    lambda a, ax=axis, d=direction: flow.argsort(a, axis=ax, direction=d),
                    lambda a, ax=axis, s=sign: jnp.argsort(s * a, axis=ax).astype(jnp.int32),
                    [x],
                    grad=False,
                )
            )
    for k in (1, 3, 6):
        # top_k returns the indices of the k largest along the last axis, largest first
        cases.append(
            Case(
                f"top_k {k}",
                lambda a, k=k: flow.math.top_k(a, k=k),
                lambda a, k=k: jnp.argsort(-a, axis=-1)[..., :k].astype(jnp.int32),
                [x],
                grad=False,
            )
        )
    cases.append(Case("sort 1-D", lambda a: flow.sort(a), jnp.sort, [v], grad=False))
    cases.append(
        Case(
            "top_k 1-D",
            lambda a: flow.math.top_k(a, k=5),
            lambda a: jnp.argsort(-a)[:5].astype(jnp.int32),
            [v],
            grad=False,
        )
    )
    run_cases(cases)


@pytest.mark.parametrize("target_dtype", [np.int32, np.int64])
def test_in_top_k_for_k_1_2_5(target_dtype):
    predictions = distinct((10, 5), np.float32, seed=3)
    targets = np.random.default_rng(4).integers(0, 5, 10).astype(target_dtype)
    run_cases(
        [
            Case(
                f"in_top_k {k}",
                lambda t, p, k=k: flow.math.in_top_k(t, p, k=k),
                lambda t, p, k=k: jnp.any(
                    jnp.argsort(-p, axis=1)[:, :k] == t[:, None], axis=1
                ).astype(jnp.int8),
                [targets, predictions],
                grad=False,
            )
            for k in (1, 2, 5)
        ]
    )


def full_is_shape_1(y):
    """OneFlow gives a reduction over every axis shape (1,), not ()."""
    return y.reshape(1) if y.ndim == 0 else y


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reduce_mean_moments_softmax_logsoftmax(dtype):
    x = uniform((6, 7, 8), -3, 3, dtype, seed=5)
    x4 = uniform((3, 4, 5, 6), -3, 3, dtype, seed=6)
    cases = []
    for axis in (None, [1], [0, 2]):
        for keepdims in (True, False):
            cases.append(
                Case(
                    f"reduce_mean {axis} {keepdims}",
                    lambda a, ax=axis, kd=keepdims: flow.math.reduce_mean(a, axis=ax, keepdims=kd),
                    lambda a, ax=axis, kd=keepdims: full_is_shape_1(
                        jnp.mean(a, axis=None if ax is None else tuple(ax), keepdims=kd)
                    ),
                    [x],
                )
            )
    for axes in ([0], [0, 2], [0, 1]):
        for which in (0, 1):
            cases.append(
                Case(
                    f"moments {axes} {'mean variance'.split()[which]}",
                    lambda a, ax=axes, w=which: flow.nn.moments(a, ax)[w],
                    lambda a, ax=axes, w=which: (jnp.mean(a, tuple(ax)), jnp.var(a, tuple(ax)))[w],
                    [x],
                )
            )
    cases.append(
        Case(
            "moments 1-D",
            lambda a: flow.nn.moments(a, [0])[1],
            lambda a: full_is_shape_1(jnp.var(a, 0)),
            [x[0, 0]],
        )
    )
    for axis in (-4, -3, -2, -1, 0, 1, 2, 3):
        cases.append(
            Case(
                f"softmax {axis}",
                lambda a, ax=axis: flow.nn.softmax(a, axis=ax),
                lambda a, ax=axis: jax.nn.softmax(a, axis=ax),
                [x4],
            )
        )
    for axis in (-1, 1):
        cases.append(
            Case(
                f"logsoftmax {axis}",
                lambda a, ax=axis: flow.nn.logsoftmax(a, axis=ax),
                lambda a, ax=axis: jax.nn.log_softmax(a, axis=ax),
                [x4],
            )
        )
    run_cases(cases)
