"""``oneflow._oneflow_internal.deprecated``: the dtype conversions tools call on OneFlow's
``DataType`` proto enum (oneflow-onnx maps ``flow.float32`` to its enum value with
``GetProtoDtype4OfDtype`` to read the dtypes of a ``JobSet``)."""

from __future__ import annotations

from ..._dtypes import DType, as_dtype, dtypes


def GetProtoDtype4OfDtype(dtype: DType) -> int:  # noqa: N802 - OneFlow's name
    """The ``DataType`` enum value of ``dtype`` (``flow.float32`` -> 2, ``kFloat``).

    >>> GetProtoDtype4OfDtype(as_dtype("float32"))
    2
    """
    return as_dtype(dtype).oneflow_value


def GetDTypeByDataType(data_type: int) -> DType:  # noqa: N802 - OneFlow's name
    """The dtype whose ``DataType`` enum value is ``data_type`` (2 -> ``flow.float32``).

    >>> GetDTypeByDataType(5).name
    'int32'
    """
    for dtype in dtypes():
        if dtype.oneflow_value == int(data_type):
            return dtype
    known = sorted({d.oneflow_value for d in dtypes()})
    raise ValueError(
        f"no flowjob data type has OneFlow DataType value {data_type} (known: {known})"
    )
