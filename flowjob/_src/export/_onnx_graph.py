"""Building one ONNX graph from a job's ops: value names, initializers, nodes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from ..graph import OpNode
from ._program import ExportError

_ONNX_TYPES = {
    np.dtype(np.float32): TensorProto.FLOAT,
    np.dtype(np.float64): TensorProto.DOUBLE,
    np.dtype(np.float16): TensorProto.FLOAT16,
    np.dtype(np.int8): TensorProto.INT8,
    np.dtype(np.int32): TensorProto.INT32,
    np.dtype(np.int64): TensorProto.INT64,
    np.dtype(np.uint8): TensorProto.UINT8,
    np.dtype(np.bool_): TensorProto.BOOL,
}


def onnx_type(dtype: Any, what: str) -> int:
    dtype = np.dtype(dtype)
    if dtype not in _ONNX_TYPES:
        raise ExportError(
            f"ONNX export: {what} has dtype {dtype}, which ONNX export does not "
            f"support (supported: {', '.join(d.name for d in _ONNX_TYPES)})"
        )
    return _ONNX_TYPES[dtype]


class OnnxGraph:
    """Collects nodes and initializers; ``values`` maps ``id(blob)`` to its ONNX name.
    ``free_batch``: the model's leading dimension is not fixed (converters leave it free)."""

    def __init__(self, opset: int, free_batch: bool = False):
        self.opset = opset
        self.free_batch = free_batch
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self.values: dict[int, str] = {}
        self._used: set[str] = set()

    def fresh(self, hint: str) -> str:
        """A value or node name not used yet, derived from ``hint``."""
        name, n = hint, 0
        while name in self._used:
            n += 1
            name = f"{hint}_{n}"
        self._used.add(name)
        return name

    def const(self, value: Any, hint: str, dtype: Any = None) -> str:
        """An initializer holding ``value`` (a constant of the graph)."""
        array = np.asarray(value, dtype=dtype)
        onnx_type(array.dtype, hint)
        name = self.fresh(hint)
        self.initializers.append(numpy_helper.from_array(array, name))
        return name

    def ints(self, values: Any, hint: str) -> str:
        """An int64 initializer (shapes, axes, pads)."""
        return self.const(np.asarray(values, dtype=np.int64), hint)

    def node(
        self,
        op_type: str,
        inputs: list[str],
        hint: str,
        outputs: int = 1,
        names: list[str] | None = None,
        **attrs: Any,
    ) -> Any:
        """Adds one node; returns its output name (or a list when ``outputs`` > 1).
        ``names``: output names already reserved with ``fresh``."""
        if names is None:
            names = [self.fresh(hint if outputs == 1 else f"{hint}_{i}") for i in range(outputs)]
        self.nodes.append(
            helper.make_node(op_type, inputs, names, name=self.fresh(f"{hint}/{op_type}"), **attrs)
        )
        return names[0] if outputs == 1 else names


Converter = Callable[[OnnxGraph, OpNode, list[str]], Any]
# op type -> conversion (filled by _onnx_math.py and _onnx_nn.py): returns the ONNX value
# name of the op's output (a list for several), or None when the op's attributes ask for
# something ONNX cannot express.
CONVERTERS: dict[str, Converter] = {}


def register(*op_types: str) -> Callable[[Converter], Converter]:
    def wrap(fn: Converter) -> Converter:
        for t in op_types:
            CONVERTERS[t] = fn
        return fn

    return wrap


def out_dtype(op: OpNode, i: int = 0) -> np.dtype:
    return op.outputs[i].dtype.np_dtype


def scalar(g: OnnxGraph, value: float, like: np.dtype, hint: str) -> str:
    return g.const(np.asarray(value, dtype=like), hint)
