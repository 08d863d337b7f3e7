"""``oneflow.python.framework.dtype``: the NumPy-to-flowjob dtype conversion, which OneFlow did
not export (its exported names, ``dtypes`` and the other direction, come from the table of
``_python_modules``)."""

from __future__ import annotations

from flowjob._src import _dtypes
from flowjob._src._dtypes import DType


def convert_numpy_dtype_to_oneflow_dtype(numpy_dtype) -> DType:
    """The flowjob dtype of a NumPy dtype (``np.float32`` -> ``flow.float32``)."""
    return _dtypes.as_dtype(numpy_dtype)


__all__ = ["convert_numpy_dtype_to_oneflow_dtype"]
