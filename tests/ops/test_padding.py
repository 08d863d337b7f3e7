"""``flowjob/_src/ops/_padding.py``: same_padding and pad_grad against NumPy and jax.grad."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from ops_helpers import normal, same_pads, value_and_grads

import flowjob as flow


@pytest.mark.parametrize(
    "padding, fmt, shape, kernel, strides, dilation",
    [
        ("SAME_UPPER", "NCHW", (2, 3, 5, 6), (3, 2), (2, 1), (1, 2)),
        ("SAME_LOWER", "NCHW", (1, 2, 7, 4), (4, 3), (3, 2), (1, 1)),
        ("same_lower", "NHWC", (2, 5, 6, 3), (2, 2), (2, 2), (2, 1)),
        ("SAME_UPPER", "NCW", (2, 3, 9), (4,), (2,), (1,)),
    ],
)
def test_same_padding_matches_the_same_rule(padding, fmt, shape, kernel, strides, dilation):
    x = normal(*shape, seed=6).astype(np.float64)
    lower = padding.upper() == "SAME_LOWER"
    first = 2 if fmt.startswith("NC") else 1
    pads = [(0, 0)] * len(shape)
    for i, (k, s, d) in enumerate(zip(kernel, strides, dilation)):
        pads[first + i] = same_pads(shape[first + i], k, s, d, lower)
    value, (grad,), cot = value_and_grads(
        lambda b: flow.same_padding(b, padding, fmt, kernel, strides, dilation), x
    )
    np.testing.assert_array_equal(value, np.pad(x, pads))
    want = jax.grad(lambda a: (jnp.pad(a, pads) * cot).sum())(x)
    np.testing.assert_array_equal(grad, want)
    # a window pass over the result gives ceil(size / stride) outputs
    for i, (k, s, d) in enumerate(zip(kernel, strides, dilation)):
        n = value.shape[first + i]
        assert (n - (k - 1) * d - 1) // s + 1 == -(-shape[first + i] // s)


def test_pad_grad_is_the_gradient_of_pad():
    x = normal(4, 5, 3, seed=8).astype(np.float64)
    paddings = [(1, 0), (2, 1), (0, 0)]
    dy = normal(5, 8, 3, seed=9).astype(np.float64)
    value, (grad,), cot = value_and_grads(lambda b: flow.pad_grad(b, paddings), dy)
    _, vjp = jax.vjp(lambda a: jnp.pad(a, paddings), x)
    np.testing.assert_array_equal(value, vjp(dy)[0])
    np.testing.assert_array_equal(grad, jnp.pad(cot, paddings))


def test_padding_ops_reject_bad_arguments():
    x = np.zeros((2, 3, 4, 4), np.float64)
    with pytest.raises(flow.OpError, match="SAME_UPPER"):
        value_and_grads(lambda b: flow.same_padding(b, "VALID", "NCHW", (3, 3), (1, 1), (1, 1)), x)
    with pytest.raises(flow.OpError, match="kernel_size must be a list of 2"):
        value_and_grads(
            lambda b: flow.same_padding(b, "SAME_UPPER", "NCHW", (3,), (1, 1), (1, 1)), x
        )
    with pytest.raises(flow.OpError, match="leave part"):
        value_and_grads(lambda b: flow.pad_grad(b, [(0, 0), (2, 1), (0, 0), (0, 0)]), x)
