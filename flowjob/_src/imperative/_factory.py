"""``flow.tensor``: a tensor of Python or array data, with OneFlow's dtype inference."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import numpy as np

from .. import _dtypes
from ._storage import device as _device
from ._storage import jax_device
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


def on_device(t: Tensor, where: Any) -> Tensor:
    """``t`` itself when it is on ``where`` already (or ``where`` is None), else a new leaf
    tensor with its values moved there (the creation ops' ``device=`` argument).

    Examples:
        >>> import numpy as np
        >>> import flowjob as flow
        >>> from flowjob._src.imperative._factory import on_device
        >>> t = on_device(flow.tensor([1.0]), "cuda")
        >>> assert t.device == flow.device("cuda", 0) and t.tolist() == [1.0]
    """
    if where is None:
        return t
    where = where if isinstance(where, _device) else _device(where)
    if where == t.device:
        return t
    return Tensor._wrap(jax.device_put(t.array, jax_device(where)), where=where)
