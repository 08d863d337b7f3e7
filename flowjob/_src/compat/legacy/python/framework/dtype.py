"""``oneflow.python.framework.dtype``: conversions between flowjob and NumPy dtypes."""

from __future__ import annotations

from flowjob._src import _dtypes
from flowjob._src._dtypes import DType, convert_oneflow_dtype_to_numpy_dtype


def convert_numpy_dtype_to_oneflow_dtype(numpy_dtype) -> DType:
    """The flowjob dtype of a NumPy dtype (``np.float32`` -> ``flow.float32``)."""
    return _dtypes.as_dtype(numpy_dtype)


def dtypes() -> list[DType]:
    return list(_dtypes.ALL)


__all__ = ["convert_numpy_dtype_to_oneflow_dtype", "convert_oneflow_dtype_to_numpy_dtype", "dtypes"]
