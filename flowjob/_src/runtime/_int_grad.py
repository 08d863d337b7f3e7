"""Gradients along integer paths, for train jobs whose loss (or a watched blob) is an integer.

OneFlow v0.4 ran integer gradient kernels: minimizing an integer loss seeds it with ones and
``tril``, ``masked_fill``, ``add``, ``cast``... pass integer gradients back, into float
variables through ``cast``. JAX differentiates only floating values, so in such jobs an integer
blob on a gradient path is carried as a float that holds exactly its integer value (computed
by the op's own lowering on integer inputs) and differentiates as the op's real-number
formula; watched gradients come back in the blob's dtype. An op whose lowering cannot take
float inputs (indices, bit ops) passes no gradient, as its integer result has none.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from ..graph import Blob, JobGraph


def float_dtype() -> Any:
    """The widest float JAX computes in (float64 when 64-bit values are enabled)."""
    return jnp.result_type(float)


def needs_integer_paths(graph: JobGraph, diff_blobs: list[Blob]) -> bool:
    return any(not b.dtype.is_floating for b in (*graph.losses, *diff_blobs))


def _straight_through(exact, soft):
    """``exact``'s value with ``soft``'s derivative (an integer ``exact`` becomes a float)."""
    target = exact.dtype if jnp.issubdtype(exact.dtype, jnp.floating) else float_dtype()
    soft = soft.astype(target)
    return exact.astype(target) + (soft - jax.lax.stop_gradient(soft))


def on_integer_path(op: Any, promoted: set[int]) -> bool:
    """Whether ``op`` takes a promoted input, or starts an integer path (a float -> int cast)."""
    if any(id(b) in promoted for b in op.inputs):
        return True
    return (
        op.op_type == "cast"
        and op.inputs[0].dtype.is_floating
        and not op.outputs[0].dtype.is_floating
    )


def run_op(op: Any, args: list[Any], kwargs: dict[str, Any], promoted: set[int]) -> Any:
    """Runs ``op`` when some of its integer inputs are carried as floats (ids in ``promoted``);
    marks its integer outputs that carry a derivative as promoted too."""
    exact_args = [
        a.astype(b.dtype.np_dtype) if id(b) in promoted else a for a, b in zip(args, op.inputs)
    ]
    exact = op.lowering(*exact_args, **kwargs)
    if op.op_type == "cast":  # float -> int cast: the identity's derivative, as OneFlow's
        soft = args[0]
    else:
        try:
            soft = op.lowering(*args, **kwargs)
        except Exception:  # noqa: BLE001 - a lowering that needs integers: no gradient here
            return exact
    exact_leaves = exact if isinstance(exact, tuple) else (exact,)
    soft_leaves = soft if isinstance(soft, tuple) else (soft,)
    out = []
    for blob, e, s in zip(op.outputs, exact_leaves, soft_leaves):
        if e.shape == s.shape and jnp.issubdtype(s.dtype, jnp.inexact):
            e = _straight_through(e, s)
            if not blob.dtype.is_floating:
                promoted.add(id(blob))
        out.append(e)
    return tuple(out) if isinstance(exact, tuple) else out[0]


def perturb(value: Any, blob: Blob, delta: Any, promoted: set[int]) -> Any:
    """``value + delta`` for a watched gradient; an integer blob becomes a promoted float."""
    if blob.dtype.is_floating:
        return value + delta
    promoted.add(id(blob))
    return value.astype(delta.dtype) + delta
