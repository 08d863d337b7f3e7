"""``flow.cat``: tensors joined along an axis (flowjob's ``concat`` op run by
``imperative.apply``; each input's gradient is its slice of the output's)."""

from __future__ import annotations

from collections.abc import Sequence

from .. import ops
from ..graph import Blob
from ..imperative import Tensor, apply


def _cat_body(*xs: Blob, dim: int) -> Blob:
    return ops.array_ops.concat(list(xs), axis=dim)


def cat(inputs: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Joins tensors of equal rank along ``dim``; their other axes must agree. One input is
    returned as it is, as OneFlow v0.4 did.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> a, b = flow.Tensor(2, 6, 5, 3), flow.Tensor(2, 6, 5, 3)
        >>> flow.cat([a, b], dim=1).shape
        flow.Size([2, 12, 5, 3])
    """
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise TypeError(f"flow.cat: inputs must be a non-empty list of tensors, got {inputs!r}")
    for i, t in enumerate(inputs):
        if not isinstance(t, (Tensor, Blob)):
            raise TypeError(f"flow.cat: inputs[{i}] is a {type(t).__name__}, not a tensor")
    if len(inputs) == 1:
        return inputs[0]
    first = inputs[0]
    if isinstance(dim, bool) or not isinstance(dim, int) or not -first.ndim <= dim < first.ndim:
        raise IndexError(f"flow.cat: dim={dim!r} is out of range for {first.ndim}-d inputs")
    axis = dim % first.ndim
    for i, t in enumerate(inputs):
        if t.ndim != first.ndim or any(
            t.shape[d] != first.shape[d] for d in range(first.ndim) if d != axis
        ):
            raise ValueError(
                f"flow.cat: inputs[{i}] has shape {tuple(t.shape)}, inputs[0] "
                f"{tuple(first.shape)}: they must agree on every axis but dim {axis}"
            )
    return apply("cat", _cat_body, *inputs, dim=axis)
