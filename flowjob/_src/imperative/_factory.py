"""``flow.tensor``: a tensor of Python or array data, with OneFlow's dtype inference."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import numpy as np

from .. import _dtypes
from ._tensor import Tensor


def tensor(
    data: Any,
    dtype: _dtypes.DType | None = None,
    device: Any = None,
    requires_grad: bool = False,
    placement: Any = None,
    sbp: Any = None,
    is_consistent: bool = False,
    is_lazy: bool = False,
) -> Tensor:
    """``flow.tensor(data)``: a tensor of ``data`` (a scalar, list, tuple or NumPy/JAX array).
    Without ``dtype``: float32 for Python data holding a float, else the data's own type
    (``flow.tensor([1, 2])`` is int64), as OneFlow."""
    if not isinstance(data, (bool, int, float, list, tuple, np.ndarray, jax.Array, Tensor)):
        raise TypeError(f"flow.tensor: data must be a scalar, list, tuple or array, got {data!r}")
    if dtype is None:
        if isinstance(data, Tensor):
            dtype = data.dtype
        elif isinstance(data, (np.ndarray, jax.Array)):
            dtype = _dtypes.as_dtype(data.dtype)
        elif any(isinstance(x, float) for x in _flat(data)):
            dtype = _dtypes.float32
        else:
            dtype = _dtypes.as_dtype(np.asarray(data).dtype)
    if not isinstance(data, (Tensor, np.ndarray, jax.Array)):
        data = np.asarray(data)
    return Tensor(
        data,
        dtype=dtype,
        device=device,
        requires_grad=requires_grad,
        placement=placement,
        sbp=sbp,
        is_consistent=is_consistent,
        is_lazy=is_lazy,
    )


def _flat(data: Any) -> Sequence:
    if isinstance(data, (list, tuple)):
        return [y for x in data for y in _flat(x)]
    return [data]
