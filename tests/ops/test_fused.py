"""``flowjob/_src/ops/_fused.py``: OneFlow's fused ops."""

from __future__ import annotations

import numpy as np
from ops_helpers import normal, numeric_grad, value_and_grads

import flowjob as flow
import flowjob.typing as tp


def test_fused_scale_tril_and_softmax_dropout():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(2, 4, 4))

    def ref(a):
        t = np.where(np.tril(np.ones((4, 4)), 0) > 0, a * 0.5, -1e4)
        e = np.exp(t - t.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    value, (g,), c = value_and_grads(
        lambda b: flow.nn.fused_scale_tril_softmax_dropout(b, fill_value=-1e4, scale=0.5), x
    )
    np.testing.assert_allclose(value, ref(x), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(g, numeric_grad(ref, [x], c)[0], rtol=1e-5, atol=1e-8)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 4, 4), dtype=flow.float64)) -> tp.Numpy:
        return flow.math.fused_scale_tril(x, diagonal=1, fill_value=7.0, scale=3.0)

    np.testing.assert_allclose(job(x), np.where(np.tril(np.ones((4, 4)), 1) > 0, 3 * x, 7.0))


def _np_qk_v(h, head_size, alpha):
    """The unfused chain of OneFlow's own test: split each head's q, k, v, then q @ k^T."""
    import jax.numpy as jnp

    s, b, _ = h.shape
    h4 = h.reshape(s, b, -1, 3 * head_size)
    q, k, v = (h4[..., i * head_size : (i + 1) * head_size].transpose(1, 2, 0, 3) for i in range(3))
    return alpha * jnp.matmul(q, jnp.swapaxes(k, -1, -2)), v


def test_fused_self_attention_query_mul_key_and_value_matches_the_chain_and_jax_grad():
    import jax
    import jax.numpy as jnp

    h = normal(5, 2, 2 * 3 * 4, seed=3).astype(np.float64)  # seq 5, batch 2, 2 heads of 4
    value, (grad,), cot = value_and_grads(
        lambda x: flow.math.reduce_sum(
            flow.matmul(
                *flow.nn.fused_self_attention_query_mul_key_and_value(x, head_size=4, alpha=0.5)
            ),
            axis=[3],
        ),
        h,
    )
    qmk, v = _np_qk_v(h, 4, 0.5)
    assert qmk.shape == (2, 2, 5, 5) and v.shape == (2, 2, 5, 4)
    np.testing.assert_allclose(value, jnp.matmul(qmk, v).sum(-1), rtol=1e-12)
    want = jax.grad(lambda a: (jnp.matmul(*_np_qk_v(a, 4, 0.5)).sum(-1) * cot).sum())(h)
    np.testing.assert_allclose(grad, want, rtol=1e-10, atol=1e-12)
