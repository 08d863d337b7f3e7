"""``flow.experimental.get_job_set()``: the session's jobs as OneFlow v0.4's ``JobSet`` protobuf.

Tools written for OneFlow read the compiled job rather than the Python API (oneflow-onnx's
exporter walks ``job.net.op`` and ``job.helper.lbn2logical_blob_desc``). Each job is written
as OneFlow wrote it: an ``input_conf`` op per argument, a ``variable_conf`` op per variable
(its blob ``<name>/out``, as in a checkpoint), a ``user_conf`` op per computation with OneFlow's
op type, argument and attribute names (``_jobset_ops.py``), a ``return_conf`` op per returned
blob, and the job conf (predict, or train with its losses and optimizer). Only the forward
ops are written: flowjob derives the backward pass and the update when it compiles.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _dtypes
from ..graph import Blob, JobGraph, OpKind
from . import _jobset_nn  # noqa: F401 - it adds its rules to _jobset_ops.RULES
from . import _oneflow_job_pb2 as pb
from ._jobset_ops import OpSpec, specs_for


def get_job_set() -> pb.JobSet:
    """Every job defined in the default session (traced now if not yet) as a ``JobSet``.

    Jobs whose body failed to trace (warned about, as by a checkpoint save) and eager jobs
    (they have no fixed graph) are left out.

    Examples:
        >>> import flowjob as flow, flowjob.typing as tp
        >>> @flow.global_function()
        ... def double(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        ...     return x * 2
        >>> [op.user_conf.op_type_name for op in flow.experimental.get_job_set().job[0].net.op
        ...  if op.HasField("user_conf")]
        ['scalar_mul']
    """
    from ..runtime import default_session

    session = default_session()
    job_set = pb.JobSet()
    session.trace_all()  # as a checkpoint does: every job's variables exist afterwards
    for job in list(session.jobs.values()):
        if job.eager or job.__name__ not in session.compiled:
            continue  # eager jobs have no fixed graph; failed traces were warned about
        traced = session.compiled_job(job).traced
        job_set.job.append(job_proto(traced.graph, traced.returns))
    return job_set


def _dtype_value(dtype: Any) -> int:
    return _dtypes.as_dtype(dtype).oneflow_value


def _set_shape(msg: pb.ShapeProto, shape: Sequence[int]) -> None:
    msg.SetInParent()
    msg.dim.extend(int(d) for d in shape)


_LISTS = {"int32s": "at_list_int32", "int64s": "at_list_int64", "floats": "at_list_float"}


def set_attr(value_msg: pb.AttrValue, value: Any) -> bool:
    """Fills ``value_msg`` from ``value``; an explicit ``(kind, value)`` pair picks the field
    (``"int32"``, ``"float"``, ``"shape"``, ``"dtype"``, ``"int32s"``, ``"int64s"``,
    ``"floats"``), otherwise the Python type does. False when the value has no form here."""
    if isinstance(value, tuple) and len(value) == 2 and value[0] in (
        "int32", "float", "shape", "dtype", *_LISTS,
    ):  # fmt: skip
        kind, v = value
        if kind == "int32":
            value_msg.at_int32 = int(v)
        elif kind == "float":
            value_msg.at_float = float(v)
        elif kind == "shape":
            _set_shape(value_msg.at_shape, v)
        elif kind == "dtype":
            value_msg.at_data_type = _dtype_value(v)
        else:
            field = getattr(value_msg, _LISTS[kind])
            field.SetInParent()
            field.val.extend(float(x) if kind == "floats" else int(x) for x in v)
        return True
    if isinstance(value, (bool, np.bool_)):
        value_msg.at_bool = bool(value)
    elif isinstance(value, (int, np.integer)):
        value_msg.at_int64 = int(value)
    elif isinstance(value, (float, np.floating)):
        value_msg.at_double = float(value)
    elif isinstance(value, str):  # also the str-valued mode enums
        value_msg.at_string = str(value)
    elif isinstance(value, _dtypes.DType) or isinstance(value, np.dtype):
        try:
            value_msg.at_data_type = _dtype_value(value)
        except TypeError:
            return False
    elif isinstance(value, (tuple, list)) and value:
        if all(isinstance(v, (bool, np.bool_)) for v in value):
            return False
        if all(isinstance(v, (int, np.integer)) for v in value):
            value_msg.at_list_int64.val.extend(int(v) for v in value)
        elif all(isinstance(v, (int, float, np.number)) for v in value):
            value_msg.at_list_float.val.extend(float(v) for v in value)
        elif all(isinstance(v, str) for v in value):
            value_msg.at_list_string.val.extend(str(v) for v in value)
        else:
            return False
    else:
        return False
    return True


class _JobWriter:
    def __init__(self, graph: JobGraph):
        self.graph = graph
        self.job = pb.Job()
        self.lbns: dict[int, str] = {}  # id(blob) -> its logical blob name in the job
        self.descs = self.job.helper.lbn2logical_blob_desc
        self.names: set[str] = set()
        self.placed: dict[tuple[str, tuple[str, ...]], list[str]] = {}  # placement -> op names
        self.job.job_conf.job_name = graph.name
        self.job.net.SetInParent()
        self.job.placement.SetInParent()

    def describe(self, lbn: str, shape: Sequence[int], dtype: Any, dynamic: bool = False) -> None:
        desc = self.descs[lbn]
        _set_shape(desc.shape, shape)
        desc.data_type = _dtype_value(dtype)
        desc.is_dynamic = bool(dynamic)

    def new_op(self, name: str, source: Any) -> pb.OperatorConf:
        """An op conf named ``name`` standing for (part of) flowjob's op ``source``."""
        conf = self.job.net.op.add()
        conf.name = name
        conf.device_tag = source.device_tag
        self.names.add(name)
        where = _placement(source)
        self.placed.setdefault(where, []).append(name)
        return conf

    def lbn(self, value: Any) -> str:
        if isinstance(value, Blob):
            return self.lbns.get(id(value)) or value.lbn
        return str(value)

    def interface(self, op: Any, kind: str) -> None:
        """An ``input_conf`` / ``variable_conf`` op: one blob ``<name>/out``."""
        blob = op.outputs[0]
        conf = self.new_op(op.name, op)
        if kind == "input":
            conf.input_conf.out = "out"
            blob_conf = conf.input_conf.blob_conf
            _set_shape(blob_conf.shape, blob.shape)
            blob_conf.data_type = _dtype_value(blob.dtype)
            blob_conf.is_dynamic = bool(blob.is_dynamic)
        else:
            var = conf.variable_conf
            var.out = "out"
            _set_shape(var.shape, blob.shape)
            var.data_type = _dtype_value(blob.dtype)
            var.trainable = bool(op.attrs.get("trainable", True))
        lbn = f"{op.name}/out"
        self.lbns[id(blob)] = lbn
        self.describe(lbn, blob.shape, blob.dtype, blob.is_dynamic)

    def user_ops(self, op: Any) -> None:
        specs = specs_for(op)
        for spec in specs:
            self._user_op(spec, op)
        final = next((s for s in specs if s.name == op.name), specs[-1])
        for i, blob in enumerate(op.outputs):
            if i < len(final.outputs):
                self.lbns[id(blob)] = f"{final.name}/{final.outputs[i][0]}_0"

    def _user_op(self, spec: OpSpec, source: Any) -> None:
        conf = self.new_op(spec.name, source).user_conf
        conf.op_type_name = spec.op_type
        for arg, value in spec.inputs:
            conf.input[arg].s.append(self.lbn(value))
        for arg, shape, dtype in spec.outputs:
            lbn = f"{spec.name}/{arg}_0"
            conf.output[arg].s.append(lbn)
            self.describe(lbn, shape, dtype)
        for key, value in spec.attrs.items():
            attr = pb.AttrValue()
            if set_attr(attr, value):
                conf.attr[key].CopyFrom(attr)

    def returns(self, blobs: Sequence[Blob]) -> None:
        for i, blob in enumerate(blobs):
            name, n = f"Return_{i}", 0
            while name in self.names:
                n += 1
                name = f"Return_{i}_{n}"
            conf = self.new_op(name, blob.op)
            setattr(conf.return_conf, "in", self.lbn(blob))  # noqa: B010 - `in` is a keyword
            conf.return_conf.out = "out"
            self.describe(f"{name}/out", blob.shape, blob.dtype, blob.is_dynamic)

    def placement(self) -> None:
        """OneFlow's placement groups: the ops of each (device tag, devices)."""
        for (tag, devices), names in self.placed.items():
            group = self.job.placement.placement_group.add()
            group.op_set.op_name.extend(names)
            group.parallel_conf.device_tag = tag
            group.parallel_conf.device_name.extend(devices)

    def job_conf(self) -> None:
        conf = self.job.job_conf
        graph = self.graph
        if not graph.is_train:
            conf.predict_conf.SetInParent()
            return
        train = conf.train_conf
        train.SetInParent()
        train.loss_lbn.extend(self.lbn(b) for b in graph.losses)
        if graph.optimizer is not None:
            _optimizer_conf(train.optimizer_conf.add(), graph.optimizer, graph)


def _optimizer_conf(conf: pb.OptimizerConf, optimizer: Any, graph: JobGraph) -> None:
    """The optimizer as OneFlow's ``OptimizerConf``: its variables, its learning rate at step 0
    and its update rule (those OneFlow had; others leave the rule unset)."""
    wanted = getattr(optimizer, "variables", None)
    for name, blob in graph.variables.items():
        if blob.op.attrs.get("trainable", True) and (not wanted or name in wanted):
            conf.variable_op_names.append(name)
    scheduler = optimizer.lr_scheduler
    base = scheduler.base_lr
    conf.base_learning_rate = float(scheduler(0) if base is None else base)
    kind = type(optimizer).__name__
    if kind == "SGD":
        if float(getattr(optimizer, "momentum", 0.0) or 0.0):
            conf.momentum_conf.beta = float(optimizer.momentum)
        else:
            conf.naive_conf.SetInParent()
    elif kind in ("Adam", "AdamW"):
        conf.adam_conf.beta1 = float(getattr(optimizer, "beta1", 0.9))
        conf.adam_conf.beta2 = float(getattr(optimizer, "beta2", 0.999))
        conf.adam_conf.epsilon = float(getattr(optimizer, "epsilon", 1e-8))
        conf.adam_conf.do_bias_correction = bool(getattr(optimizer, "do_bias_correction", True))
    elif kind == "RMSProp":
        conf.rmsprop_conf.SetInParent()
    elif kind == "LARS":
        conf.lars_conf.SetInParent()
    elif kind == "LAMB":
        conf.lamb_conf.SetInParent()
    elif kind == "LazyAdam":
        conf.lazy_adam_conf.SetInParent()


def _placement(op: Any) -> tuple[str, tuple[str, ...]]:
    """(device tag, OneFlow device names such as ``"0:0"``) of flowjob's op ``op``."""
    if op.outputs:
        conf = op.outputs[0].parallel_conf
        return conf.device_tag(), tuple(conf.device_name())
    return op.device_tag, ("0:0",)


def job_proto(graph: JobGraph, returns: Sequence[Blob]) -> pb.Job:
    """One traced job as OneFlow's ``Job`` message."""
    writer = _JobWriter(graph)
    for op in graph.ops:
        if op.kind is OpKind.VARIABLE:
            writer.interface(op, "variable")
        elif op.kind is OpKind.INPUT:
            writer.interface(op, "input")
        else:
            writer.user_ops(op)
    writer.returns(returns)
    writer.placement()
    writer.job_conf()
    return writer.job
