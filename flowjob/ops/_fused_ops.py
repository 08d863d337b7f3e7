"""OneFlow's fused GPU kernels as plain op chains (XLA fuses them itself):
``flow.nn.fused_bias_add_gelu`` and ``flow.nn.fused_bias_add_dropout``."""

from __future__ import annotations

from typing import Any

from ..graph import Blob, current_graph
from ._nn import bias_add, dropout
from ._unary import gelu


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
