"""A job ready to call: its traced graph, lowered program and what each call needs of them.

Everything here depends only on the job, so it is worked out once, when the job is
compiled, and each call only looks it up (calls are on the training loop's critical path).
"""

from __future__ import annotations

import inspect
import threading
import typing
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np

from .. import typing as tp
from ._arguments import StagingPool, exact_layouts
from ._feed import Feeder
from ._lowering import Fetch, LoweredJob
from ._results import LocalBlob
from ._trace import TracedJob


@dataclass
class CompiledJob:
    traced: TracedJob
    lowered: LoweredJob
    slots: threading.BoundedSemaphore  # calls in flight (concurrency_width)
    counter: int = 0  # calls of a predict job so far (seeds its random ops)
    # A train job's TrainStep, kept as a Python int, and the array last stored for it
    train_step: int = 0
    stored_step: Any = None
    layouts: list | None = None  # see exact_layouts
    # Reused buffers for the argument copies of calls that return before completing; None
    # when a copy may outlive its call (an argument read back on the host, several devices).
    staging: StagingPool | None = None
    host_reads_inputs: bool = True  # a result, handler or host op gets an argument back
    # No handlers or host ops: completing a call runs no user code, so a blocking call with
    # nothing pending completes on its thread without claiming the completion queue.
    quiet: bool = False
    return_fetches: list | None = None  # (Fetch, is_dynamic) per returned blob
    returns_one_blob: bool = False  # the body returned a blob, not a structure
    # How a call hands its results back, by return annotation (spec 2.3): "blocking",
    # "callback", "lazy" (unannotated) or "none"; and the annotation values convert with.
    return_kind: str = "none"
    return_inner: Any = None
    # (watch, Fetch of its value or None, index of its gradient) per handler that runs
    handler_plan: list = field(default_factory=list)
    host_op_plan: list = field(default_factory=list)  # (host op, Fetch of each input)
    # The job's data pipeline (readers, decoders): inputs appended after the arguments.
    feeder: Feeder | None = None

    @classmethod
    def build(cls, traced: TracedJob, lowered: LoweredJob, concurrency: int) -> CompiledJob:
        graph, fetches = traced.graph, lowered.fetches
        entry = cls(traced, lowered, threading.BoundedSemaphore(concurrency))
        diff_index = {id(w): i for i, w in enumerate(lowered.diff_watches)}
        entry.handler_plan = [
            (w, fetches[id(w.blob)] if w.kind == "value" else None, diff_index.get(id(w)))
            for w in graph.watches if w.kind == "value" or id(w) in diff_index]
        entry.host_op_plan = [(h, [fetches[id(b)] for b in h.op.inputs])
                              for h in graph.host_ops]
        entry.layouts = exact_layouts(traced.params)
        entry.host_reads_inputs = any(f.source == "input" for f in fetches.values())
        if entry.layouts is not None and not entry.host_reads_inputs and lowered.mesh is None:
            entry.staging = StagingPool()
        entry.quiet = not (graph.watches or graph.host_ops)
        if graph.feeds:
            entry.feeder = Feeder(graph, sum(len(spec.defs) for spec in traced.params))
        if traced.return_tree is not None:
            entry.return_fetches = [(fetches[id(b)], b.is_dynamic) for b in traced.returns]
            tree = traced.return_tree
            entry.returns_one_blob = tree.num_nodes == 1 and tree.num_leaves == 1
        entry.return_kind, entry.return_inner = _return_kind(traced.return_annotation)
        return entry


def _return_kind(ann: Any) -> tuple[str, Any]:
    if ann is None or ann is type(None):
        return "none", None
    if ann is inspect.Signature.empty:
        return "lazy", None
    if typing.get_origin(ann) is tp.Callback:
        return "callback", typing.get_args(ann)[0]
    return "blocking", ann


def value_of(fetch: Fetch, host_args: list[Any], device_values: list[np.ndarray]) -> Any:
    """A blob's value on the host, for a result, a handler or a host op."""
    if fetch.source == "input":
        value = host_args[fetch.index]
        if isinstance(value, list):
            return value[0] if len(value) == 1 else np.concatenate(value)
        return value
    value = device_values[fetch.index]
    if fetch.real is not None:  # padded on the device: cut back to the real shape
        real = host_args[-1].shapes[fetch.real]  # the call's RealShapes (Session._arguments)
        value = value[tuple(slice(0, n) for n in real)]
    return value


def diff_of(entry: CompiledJob, watch: Any, host_args: list[Any], value: np.ndarray) -> Any:
    """A watched gradient on the host: a dynamic blob's is cut to its real shape."""
    if entry.lowered.real_plan is None or not watch.blob.is_dynamic:
        return value
    real = host_args[-1].shapes[id(watch.blob)]
    return value[tuple(slice(0, n) for n in real)]


def results(entry: CompiledJob, host_args: list[Any], device_values: list[np.ndarray]) -> Any:
    """The call's results as the body returned them, with ``LocalBlob`` leaves."""
    fetches = entry.return_fetches
    if fetches is None:
        return None
    pieces = entry.lowered.pieces
    if entry.returns_one_blob:
        fetch, dynamic = fetches[0]
        return LocalBlob(value_of(fetch, host_args, device_values), dynamic, pieces)
    leaves = [LocalBlob(value_of(f, host_args, device_values), dynamic, pieces)
              for f, dynamic in fetches]
    return jax.tree_util.tree_unflatten(entry.traced.return_tree, leaves)
