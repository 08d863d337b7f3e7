"""Data types: OneFlow's names (``flow.float``, ``flow.int32``...) over NumPy/JAX dtypes."""

from __future__ import annotations

from dataclasses import dataclass

import jax.numpy as jnp
import numpy as np


@dataclass(frozen=True)
class DType:
    """A flowjob data type.

    ``name`` is the user-facing name, ``np_dtype`` the NumPy dtype that holds it and
    ``oneflow_enum`` the name used by OneFlow's ``DataType`` proto (checkpoint ``meta`` files).
    """

    name: str
    np_dtype: np.dtype
    oneflow_enum: str
    oneflow_value: int

    def __repr__(self) -> str:
        return f"flowjob.{self.name}"

    @property
    def is_floating(self) -> bool:
        return jnp.issubdtype(self.np_dtype, jnp.floating)

    @property
    def itemsize(self) -> int:
        return self.np_dtype.itemsize


float32 = DType("float32", np.dtype(np.float32), "kFloat", 2)
float64 = DType("float64", np.dtype(np.float64), "kDouble", 3)
float16 = DType("float16", np.dtype(np.float16), "kFloat16", 9)
bfloat16 = DType("bfloat16", np.dtype(jnp.bfloat16), "kBFloat16", 11)
int8 = DType("int8", np.dtype(np.int8), "kInt8", 4)
int32 = DType("int32", np.dtype(np.int32), "kInt32", 5)
int64 = DType("int64", np.dtype(np.int64), "kInt64", 6)
uint8 = DType("uint8", np.dtype(np.uint8), "kUInt8", 7)
# OneFlow's kChar is a signed byte used for strings (summary tags); NumPy has no separate type.
char = DType("char", np.dtype(np.int8), "kChar", 1)
# Host-only element types of the data pipeline (never in a compiled program): a batch of
# parsed OFRecords, and per-instance arrays of differing shapes (OneFlow's TensorBuffer).
record = DType("record", np.dtype(object), "kOFRecord", 8)
tensor_buffer = DType("tensor_buffer", np.dtype(object), "kTensorBuffer", 10)
float = float32  # noqa: A001 - OneFlow's spelling
double = float64

ALL: tuple[DType, ...] = (float32, float64, float16, bfloat16, int8, int32, int64, uint8, char)
_BY_NP = {d.np_dtype: d for d in ALL if d is not char}
_BY_ENUM = {d.oneflow_enum: d for d in ALL}


def as_dtype(value: object) -> DType:
    """Converts a flowjob dtype, NumPy dtype, JAX dtype or dtype name to a :class:`DType`."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str) and value in _BY_ENUM:
        return _BY_ENUM[value]
    try:
        key = np.dtype(value)
    except TypeError as exc:
        raise TypeError(f"not a data type: {value!r}") from exc
    if key not in _BY_NP:
        supported = ", ".join(d.name for d in ALL)
        raise TypeError(f"unsupported data type {key}; supported: {supported}")
    return _BY_NP[key]


def from_oneflow_enum(name: str) -> DType:
    """The dtype for a OneFlow ``DataType`` enum name such as ``"kFloat"``."""
    try:
        return _BY_ENUM[name]
    except KeyError:
        raise ValueError(f"unknown OneFlow data type {name!r}") from None


def convert_oneflow_dtype_to_numpy_dtype(oneflow_dtype: DType) -> type:
    """The NumPy scalar type holding ``oneflow_dtype`` (``flow.float32`` -> ``np.float32``)."""
    if not isinstance(oneflow_dtype, DType):
        raise TypeError(f"expected a flowjob data type such as flow.float32, got {oneflow_dtype!r}")
    return oneflow_dtype.np_dtype.type


def dtypes() -> list[DType]:
    """OneFlow's ``flow.dtypes()``: every data type a blob can have, in OneFlow's order (with
    its aliases: ``float`` is ``float32``), plus ``bfloat16``, which OneFlow lacked."""
    return [
        char,
        float,
        float32,
        double,
        float64,
        float16,
        int8,
        int32,
        int64,
        uint8,
        record,
        tensor_buffer,
        bfloat16,
    ]
