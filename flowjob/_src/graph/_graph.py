"""The job graph (``JobGraph``: the ops recorded while a job body runs) and the tracing context
that records them; blobs and op nodes are in ``_blob.py``."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._deprecation import warn_once
from .._enum import Mode
from ..errors import JobDefinitionError, OpError, OutsideJobError, describe_frame, user_frame
from . import _scope
from ._blob import Blob, OpKind, OpNode, OutputSpec
from ._real_shape import RealShape


class JobType(Mode):
    """``@flow.global_function(type=...)``."""

    TRAIN = "train"
    PREDICT = "predict"


class JobGraph:
    """The ops recorded while a job body runs once, plus what the runtime must do with them."""

    def __init__(self, name: str, job_type: str, config: Any):
        self.name = name
        # What the job trains as (``is_train``: backward pass and optimizer); ``minimize()``
        # in a predict job turns it into a train job, as OneFlow's SetTrainConf did.
        self.job_type = JobType(job_type)
        # What the job was declared as (``is_trainable``: what ops and
        # ``current_global_function_desc().IsTrainable()`` read while the body is traced);
        # OneFlow read it from the function config, which minimize() leaves alone.
        self.declared_type = self.job_type
        self.config = config
        self.ops: list[OpNode] = []
        self.inputs: list[Blob] = []
        self.variables: dict[str, Blob] = {}
        self.losses: list[Blob] = []
        self.optimizer: Any = None
        self.model_watch: Any = None  # flow.summary.watch_model's ModelWatch, if called
        # HostDelivery (graph/_delivery.py): watches, watch_diffs and host ops, in order
        self.deliveries: list[Any] = []
        self.feeds: list[Any] = []  # FeedOp (graph/_feed.py): the host data pipeline
        self.assigns: list[tuple[str, Blob]] = []
        self.unnamed_layers: dict[str, int] = {}  # layer kind -> unnamed layers so far
        # Locals of the scope the job was defined in: string annotations (handlers written
        # under ``from __future__ import annotations``) may name them.
        self.definition_locals: dict[str, Any] = {}
        # Eager mode (runtime/_eager_call.py): evaluates each op as it is recorded and holds
        # the values (``evaluate(op, index)``, ``value(blob)``); None while tracing lazily.
        self.eager: Any = None
        self._names: set[str] = set()
        self._counters: dict[str, int] = {}

    @property
    def is_train(self) -> bool:
        return self.job_type is JobType.TRAIN

    @property
    def is_trainable(self) -> bool:
        """Declared ``type="train"``: dropout, batch normalization and fake quantization
        run in training mode (unchanged by a minimize() in a predict job, as in OneFlow)."""
        return self.declared_type is JobType.TRAIN

    def __repr__(self) -> str:
        return f"JobGraph({self.name!r}, type={self.job_type}, ops={len(self.ops)})"

    def unique_name(self, prefix: str) -> str:
        """OneFlow-style automatic op name: ``<prefix>_<n>``, unique within the job."""
        namespace = _scope.current_namespace()
        while True:
            n = self._counters.get(prefix, 0)
            self._counters[prefix] = n + 1
            candidate = f"{prefix}_{n}"
            if "-".join((*namespace, candidate)) not in self._names:
                return candidate

    def _claim(self, name: str, op_type: str) -> str:
        if name in self._names:
            raise OpError(
                f"op name {name!r} is already used in job {self.name!r} (op {op_type}); "
                f"give each op a distinct name= ({describe_frame(user_frame())})"
            )
        self._names.add(name)
        return name

    def add_op(
        self,
        *,
        name: str,
        op_type: str,
        kind: OpKind,
        lowering,
        inputs: Sequence[Blob],
        attrs: dict[str, Any],
        outputs: Sequence[OutputSpec],
        rng: bool = False,
        full_name: bool = False,
        real_shape: RealShape | None = None,
        elementwise: bool = False,
    ) -> OpNode:
        """``full_name``: ``name`` already carries its namespace (variables), do not prefix."""
        namespace = _scope.current_namespace()
        full = name if full_name else "-".join((*namespace, name))
        op = OpNode(
            name=self._claim(full, op_type),
            op_type=op_type,
            kind=kind,
            lowering=lowering,
            inputs=list(inputs),
            attrs=dict(attrs),
            namespace=namespace,
            device_tag=_scope.current_device_tag(),
            user_frame=user_frame(),
            rng=rng,
            placement=_scope.current_placement(),
            real_shape=real_shape,
            elementwise=elementwise,
        )
        op.outputs = [Blob(self, op, i, s, d, dyn) for i, (s, d, dyn) in enumerate(outputs)]
        self.ops.append(op)
        if self.eager is not None:
            self.eager.evaluate(op, len(self.ops) - 1)
        return op

    # -- recorded by ops, optimizers and losses -------------------------------------------
    def add_loss(self, blob: Blob) -> None:
        check_blob(blob, "loss")
        if not self.is_train:
            raise JobDefinitionError(
                f"job {self.name!r} is a predict job: losses/optimizers need "
                '@flow.global_function(type="train") '
                f"({describe_frame(user_frame())})"
            )
        if not blob.dtype.is_floating:
            warn_once(
                f"integer loss {self.name}",
                (
                    f"job {self.name!r} minimizes the {blob.dtype.name} loss {blob.lbn}: as in "
                    "OneFlow, gradients flow along integer paths (computed as real numbers, "
                    "watched gradients cast to the blob's dtype) and into float variables "
                    f"through casts ({describe_frame(user_frame())})"
                ),
            )
        if not any(b is blob for b in self.losses):  # `in` would call Blob.__eq__
            self.losses.append(blob)

    def set_optimizer(self, optimizer: Any, losses: Sequence[Blob]) -> None:
        if not self.is_train:
            # OneFlow v0.4's minimize() set the job's train conf, whatever the declared type:
            # the job trains; ops traced in it keep the predict behaviour (is_trainable).
            warn_once(
                f"minimize in predict job {self.name}",
                f"job {self.name!r} is declared a predict job but calls minimize(): it trains, "
                "as in OneFlow v0.4 (dropout and batch normalization keep their predict "
                'behaviour); declare it with @flow.global_function(type="train") '
                f"({describe_frame(user_frame())})",
            )
            self.job_type = JobType.TRAIN
        if self.optimizer is not None and self.optimizer is not optimizer:
            raise JobDefinitionError(f"job {self.name!r} already has an optimizer")
        self.optimizer = optimizer
        for loss in losses:
            self.add_loss(loss)

    def assign(self, variable: Blob, value: Blob) -> None:
        """Makes the job write ``value`` into ``variable`` after it ran (e.g. moving means)."""
        if variable.op.kind is not OpKind.VARIABLE:
            raise OpError(f"assign target {variable.lbn} is not a variable")
        self.assigns.append((variable.op.name, value))


# -- the tracing context ------------------------------------------------------------------
@dataclass
class TraceContext:
    graph: JobGraph
    variables: Any  # VariableStore


_local = threading.local()


def _stack() -> list[TraceContext]:
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


def current_context() -> TraceContext:
    stack = _stack()
    if not stack:
        raise OutsideJobError(
            "this must be called inside the body of a @flow.global_function job "
            f"({describe_frame(user_frame())})"
        )
    return stack[-1]


def current_graph() -> JobGraph:
    """The job graph being traced; raises outside a job body."""
    return current_context().graph


def in_job() -> bool:
    return bool(_stack())


class tracing:
    """Context manager that makes ``graph`` the current job while its body runs."""

    def __init__(self, graph: JobGraph, variables: Any):
        self.ctx = TraceContext(graph, variables)

    def __enter__(self) -> TraceContext:
        _stack().append(self.ctx)
        return self.ctx

    def __exit__(self, *exc) -> None:
        _stack().pop()


def check_blob(value: Any, what: str) -> Blob:
    if not isinstance(value, Blob):
        raise OpError(f"{what} must be a blob of the job, got {type(value).__name__}: {value!r}")
    graph = current_graph()
    if value.graph is not graph:
        raise OpError(
            f"{what} {value.lbn} belongs to job {value.graph.name!r}, not to {graph.name!r}: "
            "blobs cannot cross jobs (share state through variables)"
        )
    return value


def default_prefix(op_type: str) -> str:
    """OneFlow's automatic op name prefix: ``scalar_summary`` -> ``ScalarSummary``."""
    return "".join(part.capitalize() for part in op_type.split("_"))


def is_tensor_list(blob: Blob) -> bool:
    """A tensor list (``tp.ListListNumpy`` argument, ``tensor_buffer_to_tensor_list``): a
    host value of several arrays, declared with the largest shape and its element dtype."""
    return bool(blob.op.attrs.get("is_tensor_list"))


def is_host_only(blob: Blob) -> bool:
    """Records, tensor buffers and tensor lists: values only the host data pipeline holds."""
    return blob.dtype.np_dtype.kind == "O" or is_tensor_list(blob)


def host_only_error(blob: Blob, use: str) -> OpError:
    """The error for a data-pipeline blob (records, tensor buffers) used by the program."""
    kind = "tensor list" if is_tensor_list(blob) else blob.dtype.name
    return OpError(
        f"{blob.lbn} ({kind}) is produced by the host data pipeline and has no fixed "
        f"numeric shape, so it cannot be {use}; decode it first (flow.data.OFRecordRawDecoder, "
        "flow.image.Resize to a fixed size, flow.image.CropMirrorNormalize with crop_h/crop_w, "
        "flow.tensor_list_to_tensor_buffer then flow.tensor_buffer_to_tensor)"
        f"\n  at {describe_frame(user_frame())}"
    )
