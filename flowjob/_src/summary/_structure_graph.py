"""``flow.summary.Graph``: the jobs' structure as OneFlow's ``structure_graph.json`` and as a
TensorBoard ``GraphDef`` (Graphs tab).

The converters take any list of graph-like objects: ``.name`` and ``.ops``, each op with
``.name``, ``.op_type``, ``.attrs``, ``.inputs``/``.outputs`` (blobs with ``.op_name``,
``.lbn``, ``.shape``, ``.dtype.name``), ``.namespace`` and ``.device_tag``; ``.kind`` and
``.job_type`` are used when present.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from tensorboard.compat.proto import attr_value_pb2, graph_pb2, tensor_shape_pb2, types_pb2

from ._live_writers import acquire_writer, release_writer
from ._projector_files import atomic_write

__all__ = ["Graph", "structure_graph_json", "graph_def"]

_SYSTEM_KINDS = {"input", "return", "output"}
_DT = {
    "float32": types_pb2.DT_FLOAT,
    "float64": types_pb2.DT_DOUBLE,
    "int32": types_pb2.DT_INT32,
    "uint8": types_pb2.DT_UINT8,
    "int16": types_pb2.DT_INT16,
    "int8": types_pb2.DT_INT8,
    "char": types_pb2.DT_INT8,
    "int64": types_pb2.DT_INT64,
    "bool": types_pb2.DT_BOOL,
    "float16": types_pb2.DT_HALF,
    "bfloat16": types_pb2.DT_BFLOAT16,
}
_NODE_UNSAFE = re.compile(r"[^A-Za-z0-9_.\->]+")  # '/' separates groups, ':' output indices
_MAX_REPR = 200


# -- JSON (OneFlow's structure_graph.json) --------------------------------------------------
def _jsonable(value: Any) -> Any:
    """Attribute value -> JSON value; anything unusual becomes a short string."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        v = float(value)
        return v if math.isfinite(v) else str(v)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.ndarray) and value.size <= 64:
        return _jsonable(value.tolist())
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    name = getattr(value, "name", None)
    if isinstance(name, str) and hasattr(value, "np_dtype"):  # a flowjob DType
        return name
    text = repr(value)
    return text if len(text) <= _MAX_REPR else text[:_MAX_REPR] + "..."


def _dtype_name(blob: Any) -> str:
    dtype = getattr(blob, "dtype", None)
    return str(getattr(dtype, "name", dtype))


def _class_name(op: Any) -> str:
    kind = getattr(op, "kind", None)
    if kind == "variable" or op.op_type == "variable":
        return "variable"
    if kind in _SYSTEM_KINDS:
        return "system_op"
    return str(op.op_type)


def _producers(op: Any) -> list[str]:
    seen: list[str] = []
    for blob in op.inputs:
        if blob.op_name not in seen:
            seen.append(blob.op_name)
    return seen


def _op_config(op: Any) -> dict[str, Any]:
    config: dict[str, Any] = {"name": op.name, "device_tag": str(op.device_tag)}
    cls = _class_name(op)
    if cls == "variable":
        out = op.outputs[0] if op.outputs else None
        config["variable_conf"] = {
            "out": out.lbn.rsplit("/", 1)[-1] if out is not None else "out",
            "shape": list(out.shape) if out is not None else [],
            "data_type": _dtype_name(out) if out is not None else "",
        }
    elif cls == "system_op":
        config[f"{op.op_type}_conf"] = {
            "out": [b.lbn for b in op.outputs],
            "blob_conf": [
                {"shape": list(b.shape), "data_type": _dtype_name(b)} for b in op.outputs
            ],
        }
    else:
        config["user_conf"] = {
            "op_type_name": str(op.op_type),
            "input": {f"in_{i}": {"s": [b.lbn]} for i, b in enumerate(op.inputs)},
            "output": {f"out_{i}": {"s": [b.lbn]} for i, b in enumerate(op.outputs)},
        }
    # OneFlow flattens the op's attributes into top-level keys of "config".
    for key, value in op.attrs.items():
        config.setdefault(str(key), _jsonable(value))
    return config


def structure_graph_json(graphs: Iterable[Any]) -> list[dict[str, Any]]:
    """OneFlow's Keras-like structure graph: one ``"Model"`` entry per job."""
    out = []
    for graph in graphs:
        layers = [
            {
                "name": op.name,
                "class_name": _class_name(op),
                "config": _op_config(op),
                "inbound_nodes": _producers(op),
            }
            for op in graph.ops
        ]
        out.append(
            {
                "class_name": "Model",
                "backend": "oneflow",
                "config": {
                    "name": graph.name,
                    "layers": layers,
                    "input_layers": [],
                    "output_layers": [],
                },
            }
        )
    return out


# -- GraphDef (TensorBoard) -----------------------------------------------------------------
def _clean(part: str) -> str:
    return _NODE_UNSAFE.sub("_", part) or "_"


def _known_namespaces(ops: Sequence[Any]) -> set[tuple[str, ...]]:
    known = set()
    for op in ops:
        ns = tuple(str(n) for n in getattr(op, "namespace", ()) or ())
        known.update(ns[:k] for k in range(1, len(ns) + 1))
    return known


def _node_name(job: str, op: Any, known: set[tuple[str, ...]]) -> str:
    namespace = [str(n) for n in getattr(op, "namespace", ()) or ()]
    leaf = op.name
    prefix = "-".join(namespace) + "-"
    if namespace and leaf.startswith(prefix) and len(leaf) > len(prefix):
        leaf = leaf[len(prefix) :]  # flowjob op names already carry "<ns1>-<ns2>-"
    elif not namespace:
        # Variables are named "<ns>-<name>" but recorded without a namespace; put them in
        # the group of that namespace when other ops of the job use it.
        parts = leaf.split("-")
        for k in range(len(parts) - 1, 0, -1):
            if tuple(parts[:k]) in known:
                namespace, leaf = parts[:k], "-".join(parts[k:])
                break
    return "/".join(_clean(p) for p in (job, *namespace, leaf))


def _shape_proto(shape: Sequence[int]) -> tensor_shape_pb2.TensorShapeProto:
    return tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=int(d)) for d in shape]
    )


def _attr(value: Any) -> attr_value_pb2.AttrValue:
    av = attr_value_pb2.AttrValue
    if isinstance(value, bool | np.bool_):
        return av(b=bool(value))
    if isinstance(value, numbers.Integral) and -(2**63) <= int(value) < 2**63:
        return av(i=int(value))
    if isinstance(value, numbers.Real):
        return av(f=float(value))
    if isinstance(value, str | bytes):
        return av(s=value if isinstance(value, bytes) else value.encode())
    if isinstance(value, list | tuple):
        items = list(value)
        if all(isinstance(v, bool | np.bool_) for v in items):
            return av(list=av.ListValue(b=[bool(v) for v in items]))
        if all(isinstance(v, numbers.Integral) for v in items):
            return av(list=av.ListValue(i=[int(v) for v in items]))
        if all(isinstance(v, numbers.Real) for v in items):
            return av(list=av.ListValue(f=[float(v) for v in items]))
        if all(isinstance(v, str) for v in items):
            return av(list=av.ListValue(s=[v.encode() for v in items]))
    name = getattr(value, "name", None)
    if isinstance(name, str) and name in _DT and hasattr(value, "np_dtype"):
        return av(type=_DT[name])
    return av(s=json.dumps(_jsonable(value)).encode())


def _device(tag: Any) -> str:
    tag = str(tag or "").lower()
    return {"cpu": "/device:CPU:0", "gpu": "/device:GPU:0"}.get(tag, tag)


def graph_def(graphs: Iterable[Any]) -> graph_pb2.GraphDef:
    """Every job in one ``GraphDef``: nodes ``<job>/<ns1>/<ns2>/<op>``, inputs as edges
    (``node:k`` for output k > 0), ``_output_shapes`` and the op attributes as attrs."""
    gd = graph_pb2.GraphDef()
    for graph in graphs:
        job = str(graph.name)
        names: dict[str, str] = {}
        taken: set[str] = set()
        outputs: dict[str, list[str]] = {}
        known = _known_namespaces(graph.ops)
        for op in graph.ops:
            name = base = _node_name(job, op, known)
            k = 1
            while name in taken:
                name, k = f"{base}_{k}", k + 1
            names[op.name] = name
            taken.add(name)
            outputs[op.name] = [b.lbn for b in op.outputs]
        for op in graph.ops:
            node = gd.node.add(
                name=names[op.name],
                op=str(op.op_type),
                device=_device(getattr(op, "device_tag", "")),
            )
            for blob in op.inputs:
                producer = names.get(blob.op_name)
                if producer is None:  # produced outside this job's op list
                    producer = f"{_clean(job)}/{_clean(blob.op_name)}"
                    names[blob.op_name] = producer
                    gd.node.add(name=producer, op="External")
                lbns = outputs.get(blob.op_name, [])
                index = lbns.index(blob.lbn) if blob.lbn in lbns else 0
                node.input.append(producer if index == 0 else f"{producer}:{index}")
            node.attr["_output_shapes"].list.shape.extend(_shape_proto(b.shape) for b in op.outputs)
            if op.outputs and _dtype_name(op.outputs[0]) in _DT:
                node.attr["dtype"].type = _DT[_dtype_name(op.outputs[0])]
            if getattr(op, "kind", None):
                node.attr["_kind"].s = str(op.kind).encode()
            if getattr(graph, "job_type", None):
                node.attr["_job_type"].s = str(graph.job_type).encode()
            for key, value in op.attrs.items():
                if str(key) not in node.attr:
                    node.attr[str(key)].CopyFrom(_attr(value))
    return gd


# -- the public object ---------------------------------------------------------------------
class Graph:
    """``Graph(logdir).write_structure_graph()`` logs the structure of every job."""

    def __init__(self, logdir: str | os.PathLike[str] | None = None):
        if logdir is None:
            raise ValueError(
                "Graph(logdir): logdir should not be None! "
                "Pass the summary log directory, e.g. Graph('./log')"
            )
        if not isinstance(logdir, (str, os.PathLike)):
            raise TypeError(
                f"Graph(logdir): logdir must be a str or path, "
                f"got {type(logdir).__name__}: {logdir!r}"
            )
        self.logdir = os.fspath(logdir)
        self._dir = os.path.join(self.logdir, "graph")
        os.makedirs(self._dir, exist_ok=True)
        self._path = os.path.join(self._dir, "structure_graph.json")
        self._written = False

    @property
    def path(self) -> str:
        """``<logdir>/graph/structure_graph.json``."""
        return self._path

    def write_structure_graph(self, *, jobs: Sequence[Any] | None = None) -> None:
        """Writes ``structure_graph.json`` (one entry per job) and, for TensorBoard's Graphs
        tab, a GraphDef of all jobs into the event file of the run ``logdir`` (its open
        summary writer, or a new file).

        ``jobs`` (flowjob extension) defaults to every job of the session
        (``flowjob._src.graph.all_job_graphs()``, which traces jobs not traced yet). A second call
        on the same object while the file exists raises OSError, as in OneFlow.
        """
        if self._written and os.path.exists(self._path):
            raise OSError(
                "You must create only one structure graph log file! "
                f"({self._path} was already written by this Graph object)"
            )
        if jobs is None:
            from ..graph import all_job_graphs

            jobs = all_job_graphs()
        jobs = list(jobs)
        text = json.dumps(structure_graph_json(jobs), ensure_ascii=False, indent=1)
        os.makedirs(self._dir, exist_ok=True)
        atomic_write(self._path, text.encode("utf-8"))
        self._written = True
        if jobs:
            # Into the run's own open event file (or a new one), so the run shows once.
            writer = acquire_writer(self.logdir)
            try:
                writer.graph_def(graph_def(jobs))
                writer.flush()
            finally:
                release_writer(writer)
