"""``flowjob/_src/ops/_pooling.py``: 1-D and 3-D pooling against a ``lax.reduce_window`` reference
(forward, and gradients through jax.grad)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from ops_helpers import normal, value_and_grads

import flowjob as flow


def _reference(x, mode, window, strides, pads):
    """Pooling over the spatial axes given by ``window`` (1 elsewhere); averages count the
    real elements of each window."""
    if mode == "max":
        return lax.reduce_window(x, -jnp.inf, lax.max, window, strides, pads)
    total = lax.reduce_window(x, 0.0, lax.add, window, strides, pads)
    count = lax.reduce_window(jnp.ones_like(x), 0.0, lax.add, window, strides, pads)
    return total / count


CASES = [
    # op, shape, ksize, strides, padding, data_format, window, strides (full), pads (full)
    ("max_pool1d", (2, 7, 3), 3, 2, "VALID", "NWC", (1, 3, 1), (1, 2, 1), [(0, 0)] * 3),
    (
        "avg_pool1d",
        (2, 3, 8),
        3,
        2,
        [(0, 0), (0, 0), (1, 1)],
        "NCW",
        (1, 1, 3),
        (1, 1, 2),
        [(0, 0), (0, 0), (1, 1)],
    ),
    (
        "max_pool3d",
        (2, 3, 5, 6, 4),
        (3, 2, 2),
        (2, 2, 1),
        [(0, 0), (0, 0), (1, 0), (0, 1), (1, 1)],
        "NCDHW",
        (1, 1, 3, 2, 2),
        (1, 1, 2, 2, 1),
        [(0, 0), (0, 0), (1, 0), (0, 1), (1, 1)],
    ),
    (
        "avg_pool3d",
        (2, 5, 4, 6, 3),
        2,
        (1, 2, 2),
        [(0, 0), (1, 1), (0, 1), (1, 0), (0, 0)],
        "NDHWC",
        (1, 2, 2, 2, 1),
        (1, 1, 2, 2, 1),
        [(0, 0), (1, 1), (0, 1), (1, 0), (0, 0)],
    ),
]


@pytest.mark.parametrize(
    "op, shape, ksize, strides, padding, fmt, window, full_strides, pads", CASES
)
def test_pooling_matches_reduce_window_and_its_gradient(
    op, shape, ksize, strides, padding, fmt, window, full_strides, pads
):
    mode = op[:3]
    x = normal(*shape, seed=4).astype(np.float64)
    value, (grad,), cot = value_and_grads(
        lambda b: getattr(flow.nn, op)(b, ksize, strides, padding, data_format=fmt), x
    )
    want = _reference(x, mode, window, full_strides, pads)
    np.testing.assert_allclose(value, want, rtol=1e-12)
    want_grad = jax.grad(lambda a: (_reference(a, mode, window, full_strides, pads) * cot).sum())(x)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("mode", ["max", "avg"])
def test_pool3d_same_padding_and_ceil_mode_match_per_axis_padding(mode):
    # SAME on (7, 5, 6) with k=3, s=2: out (4, 3, 3), pads (1, 1), (1, 1), (1, 1)
    x = normal(1, 2, 7, 5, 6, seed=9).astype(np.float64)
    value, _, _ = value_and_grads(lambda b: getattr(flow.nn, f"{mode}_pool3d")(b, 3, 2, "SAME"), x)
    want = _reference(
        x, mode, (1, 1, 3, 3, 3), (1, 1, 2, 2, 2), [(0, 0), (0, 0), (1, 1), (1, 1), (1, 1)]
    )
    np.testing.assert_allclose(value, want, rtol=1e-12)
    # ceil_mode adds a last window that starts inside the input: D 5 -> 3 windows, not 2
    y = normal(1, 1, 5, 4, 4, seed=2).astype(np.float64)
    value, _, _ = value_and_grads(
        lambda b: getattr(flow.nn, f"{mode}_pool3d")(b, 2, 2, "VALID", ceil_mode=True), y
    )
    assert value.shape == (1, 1, 3, 2, 2)
    np.testing.assert_allclose(
        value[:, :, :2],
        _reference(y[:, :, :4], mode, (1, 1, 2, 2, 2), (1, 1, 2, 2, 2), [(0, 0)] * 5),
        rtol=1e-12,
    )
    last = y[:, :, 4].reshape(1, 1, 2, 2, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(1, 1, 2, 2, 4)
    np.testing.assert_allclose(
        value[:, :, 2], last.max(-1) if mode == "max" else last.mean(-1), rtol=1e-12
    )


def test_pooling_rejects_wrong_rank_and_format():
    x = np.zeros((2, 3, 4), np.float64)
    with pytest.raises(flow.OpError, match="data_format must be"):
        value_and_grads(lambda b: flow.nn.max_pool1d(b, 2, 2, "VALID", data_format="NCHW"), x)
    with pytest.raises(flow.OpError, match="must be 5-D"):
        value_and_grads(lambda b: flow.nn.max_pool3d(b, 2, 2, "VALID"), x)


@pytest.mark.parametrize("strides", [None, 1, [1], [1, 1], (1, 1), np.array([1, 1])])
def test_sequence_arguments_take_oneflows_forms(strides):
    # OneFlow's _GetSequence read None as [1] (a 2021 program passed strides=None), a scalar or
    # a 1-element sequence as repeated, and any sized sequence (NumPy arrays too)
    x = normal(2, 3, 6, 6)

    @flow.global_function()
    def pool(a: flow.typing.Numpy.Placeholder((2, 3, 6, 6))) -> flow.typing.Numpy:
        return flow.nn.avg_pool2d(a, 2, strides, "VALID", data_format="NCHW")

    expected = _reference(jnp.asarray(x), "avg", (1, 1, 2, 2), (1, 1, 1, 1), "VALID")
    np.testing.assert_allclose(pool(x), expected, rtol=1e-5)
