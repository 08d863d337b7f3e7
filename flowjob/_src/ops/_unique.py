"""Distinct values of a 1-D blob: ``flow.experimental.unique_with_counts`` and
``flow.experimental.indexed_slices_reduce_sum``.

As OneFlow's, the outputs keep the input's length: the first ``num_unique`` entries hold the
distinct values in the order of their first occurrence (OneFlow's CPU kernel), the rest is
zero, and ``num_unique`` says how many are real.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from .. import _dtypes
from ..graph import Blob, apply_op
from ._util import check_name, dtype_arg, fail, require_blob, require_int_blob


def first_occurrence_unique(x: Any) -> tuple[Any, Any, Any, Any]:
    """For a 1-D array: (distinct values in first-occurrence order, zero-padded to ``x``'s
    length; each element's index in them; the count of each, zero-padded; how many)."""
    n = x.shape[0]
    order = jnp.argsort(x, stable=True)
    ordered = x[order]
    starts = jnp.concatenate([jnp.ones((1,), bool), ordered[1:] != ordered[:-1]])
    group = jnp.cumsum(starts) - 1  # of each sorted element: its distinct value, by value
    first = jax.ops.segment_min(order, group, num_segments=n)  # unused groups: the max int
    rank = jnp.zeros((n,), group.dtype).at[jnp.argsort(first, stable=True)].set(jnp.arange(n))
    slot = rank[group]  # of each sorted element: its distinct value, by first occurrence
    values = jnp.zeros_like(x).at[slot].set(ordered)
    index = jnp.zeros((n,), slot.dtype).at[order].set(slot)
    counts = jnp.zeros((n,), jnp.int64).at[slot].add(1)
    return values, index, counts, group[-1] + 1


def _lower_unique_with_counts(x, *, out_idx):
    values, index, counts, num = first_occurrence_unique(x)
    return values, index.astype(out_idx), counts.astype(out_idx), num.astype(out_idx).reshape(1)


def unique_with_counts(
    x: Blob, out_idx: Any = _dtypes.int32, name: str | None = None
) -> tuple[Blob, Blob, Blob, Blob]:
    """``(y, idx, count, num_unique)`` of the 1-D ``x``: ``y[:num_unique]`` are its distinct
    values (first occurrence first), ``y[idx] == x``, ``count`` how often each occurs;
    ``idx``, ``count`` and ``num_unique`` (shape ``(1,)``) are of dtype ``out_idx``."""
    public = "flow.experimental.unique_with_counts"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if x.ndim != 1:
        fail(public, f"x must be 1-D, got {x.lbn} of shape {x.shape}", name)
    dt = dtype_arg(public, out_idx, name)
    if dt.np_dtype.kind not in "iu":
        fail(public, f"out_idx must be an integer dtype, got {dt.name}", name)
    return apply_op(
        "unique_with_counts",
        _lower_unique_with_counts,
        [x],
        attrs={"out_idx": dt.np_dtype},
        name=name,
        prefix="UniqueWithCounts",
    )


def _lower_indexed_slices_reduce_sum(indices, values):
    n = indices.size
    flat = indices.reshape(n)
    rows = values.reshape(n, -1)
    unique, index, _, num = first_occurrence_unique(flat)
    summed = jnp.zeros_like(rows).at[index].add(rows)
    return unique, summed, num.astype(jnp.int64).reshape(1)


def indexed_slices_reduce_sum(
    indices: Blob, values: Blob, name: str | None = None
) -> tuple[Blob, Blob, Blob]:
    """Rows of ``values`` summed per distinct index: ``(y_indices (n,), y_values (n, m),
    num_unique)`` where ``n`` is the number of indices and the first ``num_unique`` (int64,
    shape ``(1,)``) rows are real, in the order of the indices' first occurrence."""
    public = "flow.experimental.indexed_slices_reduce_sum"
    name = check_name(public, name)
    require_int_blob(public, indices, "indices", name)
    require_blob(public, values, "values", name)
    if indices.ndim >= values.ndim or values.shape[: indices.ndim] != indices.shape:
        fail(
            public,
            f"values' leading dimensions must be the indices' shape {indices.shape} followed "
            f"by at least one more, got values of shape {values.shape}",
            name,
        )
    return apply_op(
        "indexed_slices_reduce_sum",
        _lower_indexed_slices_reduce_sum,
        [indices, values],
        name=name,
        prefix="IndexedSlicesReduceSum",
    )
