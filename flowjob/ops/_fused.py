"""OneFlow's fused GPU kernels as plain ops or op chains (XLA fuses them itself):
``flow.nn.fused_bias_add_gelu``, ``fused_bias_add_dropout``, ``fused_scale_tril`` and
``fused_scale_tril_softmax_dropout``.
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


def fused_bias_add_gelu(value: Blob, bias: Blob, data_format: str | None = None,
                        name: str | None = None) -> Blob:
    """``gelu(bias_add(value, bias))``."""
    prefix = None if name is None else name + "_"
    out = bias_add(value, bias, data_format, name=None if prefix is None else prefix + "bias_add")
    return gelu(out, name=name)


def fused_bias_add_dropout(value: Blob, bias: Blob, data_format: str | None = None,
                           rate: float = 0.0, noise_shape: Any = None, seed: int | None = None,
                           name: str | None = None) -> Blob:
    """``dropout(bias_add(value, bias), rate)`` (just the bias add in predict jobs)."""
    if name is None:  # dropout wants a name with a seed; OneFlow makes one up here
        name = current_graph().unique_name("BiasAddDropout")
    out = bias_add(value, bias, data_format, name=name + "_bias_add")
    return dropout(out, rate, noise_shape, seed, name=name)


def _lower_scale_tril(x, *, diagonal, fill, scale):
    return lower_tril(x * jnp.asarray(scale, x.dtype), diagonal=diagonal, fill=fill)


def fused_scale_tril(x: Blob, diagonal: int = 0, fill_value: float = 0, scale: float = 1,
                     name: str | None = None) -> Blob:
    """``tril(x * scale, diagonal, fill_value)`` (``fill_value`` is not scaled)."""
    public = "flow.math.fused_scale_tril"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if x.ndim < 2:
        fail(public, f"x needs rank >= 2, got shape {x.shape}", name)
    return apply_op("fused_scale_tril", _lower_scale_tril, [x],
                    attrs={"diagonal": int(diagonal), "fill": fill_value, "scale": scale},
                    name=name, prefix="FusedScaleTril")


def _lower_scale_tril_softmax_mask(x, mask, *, diagonal, fill, scale, mask_scale):
    t = _lower_scale_tril(x, diagonal=diagonal, fill=fill, scale=scale)
    y = jax.nn.softmax(t, axis=-1) * jnp.asarray(mask_scale, x.dtype)
    return jnp.where(mask != 0, y, jnp.zeros((), x.dtype))  # dropped NaNs (all -inf rows) -> 0


def fused_scale_tril_softmax_dropout(x: Blob, diagonal: int = 0, fill_value: float = 0,
                                     scale: float = 1, rate: float = 0.0,
                                     noise_shape: Any = None, seed: int | None = None,
                                     name: str | None = None) -> Blob:
    """``dropout(softmax(tril(x * scale, diagonal, fill_value)), rate)`` over the last axis.
    As OneFlow, the dropout mask applies in every job (``rate=0`` keeps everything)."""
    public = "flow.math.fused_scale_tril_softmax_dropout"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if not x.dtype.is_floating or x.ndim < 2:
        fail(public, f"x must be floating point with rank >= 2, got {x.shape} {x.dtype.name}",
             name)
    if name is None:
        name = current_graph().unique_name("FusedTrilScaleSoftmaxMaskScale")
    mask = random_mask_like(x, rate, seed, noise_shape, name=f"{name}-dropout_random_mask_like")
    return apply_op("fused_tril_scale_softmax_mask_scale", _lower_scale_tril_softmax_mask,
                    [x, mask], attrs={"diagonal": int(diagonal), "fill": float(fill_value),
                                      "scale": float(scale),
                                      "mask_scale": 1.0 / (1.0 - rate)}, name=name)
