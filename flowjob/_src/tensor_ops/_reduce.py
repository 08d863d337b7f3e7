"""Reductions on tensors: ``sum`` and ``mean`` over ``dim`` (an int, a list of ints, or
``None`` for every axis), ``keepdim`` as OneFlow v0.4's experimental API spells them."""

from __future__ import annotations

from typing import Any

from .. import ops
from ..graph import Blob
from ..imperative import apply


def _axes(dim: Any) -> Any:
    if dim is None:
        return None
    return tuple(dim) if isinstance(dim, (list, tuple)) else int(dim)


def _sum_body(x: Blob, *, dim: Any, keepdim: bool) -> Blob:
    return ops.math.reduce_sum(x, axis=dim, keepdims=keepdim)


def _mean_body(x: Blob, *, dim: Any, keepdim: bool) -> Blob:
    return ops.math.reduce_mean(x, axis=dim, keepdims=keepdim)


def sum(input: Any, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001, A002
    """The sum over ``dim`` (every axis when ``None``).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> x = flow.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
        >>> assert np.allclose(flow.sum(x, dim=1).numpy(), [3.0, 12.0])
    """
    return apply("sum", _sum_body, input, dim=_axes(dim), keepdim=bool(keepdim))


def mean(input: Any, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A002
    """The mean over ``dim`` (every axis when ``None``)."""
    return apply("mean", _mean_body, input, dim=_axes(dim), keepdim=bool(keepdim))


METHODS = {"sum": sum, "mean": mean}
