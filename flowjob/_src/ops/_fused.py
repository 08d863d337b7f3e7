"""OneFlow's fused GPU kernels as plain ops or op chains (XLA fuses them itself):
``flow.nn.fused_bias_add_gelu``, ``fused_bias_add_dropout``, ``fused_scale_tril``,
``fused_scale_tril_softmax_dropout`` and ``fused_self_attention_query_mul_key_and_value``.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from ..graph import Blob, apply_op, current_graph
from ._activations import gelu
from ._linalg import bias_add, lower_tril
from ._random import dropout, random_mask_like
from ._util import check_name, fail, require_blob


def fused_bias_add_gelu(
    value: Blob, bias: Blob, data_format: str | None = None, name: str | None = None
) -> Blob:
    """``gelu(bias_add(value, bias))``."""
    prefix = None if name is None else name + "_"
    out = bias_add(value, bias, data_format, name=None if prefix is None else prefix + "bias_add")
    return gelu(out, name=name)


def fused_bias_add_dropout(
    value: Blob,
    bias: Blob,
    data_format: str | None = None,
    rate: float = 0.0,
    noise_shape: Any = None,
    seed: int | None = None,
    name: str | None = None,
) -> Blob:
    """``dropout(bias_add(value, bias), rate)`` (just the bias add in predict jobs)."""
    if name is None:  # dropout wants a name with a seed; OneFlow makes one up here
        name = current_graph().unique_name("BiasAddDropout")
    out = bias_add(value, bias, data_format, name=name + "_bias_add")
    return dropout(out, rate, noise_shape, seed, name=name)


def _lower_scale_tril(x, *, diagonal, fill, scale):
    return lower_tril(x * jnp.asarray(scale, x.dtype), diagonal=diagonal, fill=fill)


def fused_scale_tril(
    x: Blob, diagonal: int = 0, fill_value: float = 0, scale: float = 1, name: str | None = None
) -> Blob:
    """``tril(x * scale, diagonal, fill_value)`` (``fill_value`` is not scaled)."""
    public = "flow.math.fused_scale_tril"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if x.ndim < 2:
        fail(public, f"x needs rank >= 2, got shape {x.shape}", name)
    return apply_op(
        "fused_scale_tril",
        _lower_scale_tril,
        [x],
        attrs={"diagonal": int(diagonal), "fill": fill_value, "scale": scale},
        name=name,
        prefix="FusedScaleTril",
    )


def _lower_scale_tril_softmax_mask(x, mask, *, diagonal, fill, scale, mask_scale):
    t = _lower_scale_tril(x, diagonal=diagonal, fill=fill, scale=scale)
    y = jax.nn.softmax(t, axis=-1) * jnp.asarray(mask_scale, x.dtype)
    return jnp.where(mask != 0, y, jnp.zeros((), x.dtype))  # dropped NaNs (all -inf rows) -> 0


def fused_scale_tril_softmax_dropout(
    x: Blob,
    diagonal: int = 0,
    fill_value: float = 0,
    scale: float = 1,
    rate: float = 0.0,
    noise_shape: Any = None,
    seed: int | None = None,
    name: str | None = None,
) -> Blob:
    """``dropout(softmax(tril(x * scale, diagonal, fill_value)), rate)`` over the last axis.
    As OneFlow, the dropout mask applies in every job (``rate=0`` keeps everything)."""
    public = "flow.math.fused_scale_tril_softmax_dropout"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if not x.dtype.is_floating or x.ndim < 2:
        fail(public, f"x must be floating point with rank >= 2, got {x.shape} {x.dtype.name}", name)
    if name is None:
        name = current_graph().unique_name("FusedTrilScaleSoftmaxMaskScale")
    mask = random_mask_like(x, rate, seed, noise_shape, name=f"{name}-dropout_random_mask_like")
    return apply_op(
        "fused_tril_scale_softmax_mask_scale",
        _lower_scale_tril_softmax_mask,
        [x, mask],
        attrs={
            "diagonal": int(diagonal),
            "fill": float(fill_value),
            "scale": float(scale),
            "mask_scale": 1.0 / (1.0 - rate),
        },
        name=name,
    )


def _lower_self_attention_qk_v(hidden, *, head_size, alpha):
    seq, batch, width = hidden.shape
    # (S, B, heads * 3 * head_size): each head's query, key and value lie side by side
    qkv = hidden.reshape(seq, batch, width // (3 * head_size), 3, head_size)
    q, k, v = (qkv[:, :, :, i].transpose(1, 2, 0, 3) for i in range(3))  # (B, heads, S, hs)
    scores = jnp.einsum("bhsd,bhtd->bhst", q, k) * jnp.asarray(alpha, hidden.dtype)
    return scores, v


def fused_self_attention_query_mul_key_and_value(
    x: Blob, head_size: int, alpha: float = 1.0, name: str | None = None
) -> tuple[Blob, Blob]:
    """Self-attention inputs from hidden states ``x`` of shape ``(seq, batch, heads * 3 *
    head_size)`` (each head's query, key, value side by side): ``alpha * q @ k^T`` of shape
    ``(batch, heads, seq, seq)`` and ``v`` of shape ``(batch, heads, seq, head_size)``."""
    public = "flow.nn.fused_self_attention_query_mul_key_and_value"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if isinstance(head_size, bool) or not isinstance(head_size, int) or head_size < 1:
        fail(public, f"head_size must be a positive int, got {head_size!r}", name)
    if x.ndim != 3 or x.shape[2] % (3 * head_size):
        fail(
            public,
            f"x must be (seq, batch, hidden) with hidden a multiple of 3 * head_size "
            f"= {3 * head_size}, got {x.shape}",
            name,
        )
    return apply_op(
        "fused_self_attention_query_mul_key_and_value",
        _lower_self_attention_qk_v,
        [x],
        attrs={"head_size": head_size, "alpha": float(alpha)},
        name=name,
        prefix="FusedSelfAttentionQueryMulKeyAndValue",
    )
