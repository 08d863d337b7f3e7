"""A job ready to call: its traced graph, lowered program and what each call needs of them.

Everything here depends only on the job, so it is worked out once, when the job is
compiled, and each call only looks it up (calls are on the training loop's critical path).
"""

from __future__ import annotations

import enum
import inspect
import threading
import typing
from dataclasses import dataclass
from typing import Any

from .. import typing as tp
from ._arguments import StagingPool, exact_layouts
from ._delivery import Delivery, Results, Source, build_plan
from ._feed import Feeder
from ._lowering import LoweredJob
from ._trace import TracedJob


class ReturnKind(enum.Enum):
    """How a call hands its results back, by return annotation (spec 2.3)."""

    BLOCKING = enum.auto()  # -> tp.Numpy, tp.ListNumpy, ...: the caller waits for them
    CALLBACK = enum.auto()  # -> tp.Callback[...]: the call returns a registration function
    LAZY = enum.auto()  # unannotated: a LazyFutureRemoteBlobs (.get() / .async_get())
    NONE = enum.auto()  # -> None


@dataclass
class CompiledJob:
    traced: TracedJob
    lowered: LoweredJob
    slots: threading.BoundedSemaphore  # calls in flight (concurrency_width)
    counter: int = 0  # calls of a predict job so far (seeds its random ops)
    warm: bool = False  # its program was compiled (runtime/_calls.py: Calls._warm)
    # A train job's TrainStep, kept as a Python int, and the array last stored for it
    train_step: int = 0
    stored_step: Any = None
    layouts: list | None = None  # see exact_layouts
    # Reused buffers for the argument copies of calls that return before completing; None
    # when a copy may outlive its call (an argument read back on the host, several devices).
    staging: StagingPool | None = None
    host_reads_inputs: bool = True  # a result, handler or host op gets an argument back
    # Handlers and host ops, in the order they run (runtime/_delivery.py). Empty: completing
    # a call runs no user code, so a blocking call with nothing pending completes on its
    # thread without claiming the completion queue.
    plan: tuple[Delivery, ...] = ()
    quiet: bool = True  # no plan (read on every call: a field, not a property)
    results: Results | None = None  # None: the body returned nothing
    returns_one_blob: bool = False  # the body returned a blob, not a structure
    return_kind: ReturnKind = ReturnKind.NONE
    return_inner: Any = None  # the annotation the results convert with
    # The job's data pipeline (readers, decoders): inputs appended after the arguments.
    feeder: Feeder | None = None
    # The program output a ``-> tp.Numpy`` job returns, when a blocking call can take the
    # short way (``Calls.run_direct``): nothing watched, fixed-shape arguments that all go
    # to the program on one device, no host code inside, no data pipeline; else None.
    direct_output: int | None = None
    device_inputs_all: bool = False  # every argument is a program input, in order
    writes_state: bool = False  # lowered.writes_state, read on every direct call
    direct_call: Any = None  # the DirectCall (runtime/_direct.py) once the job is warm

    @classmethod
    def build(cls, traced: TracedJob, lowered: LoweredJob, concurrency: int) -> CompiledJob:
        graph, fetches = traced.graph, lowered.fetches
        entry = cls(traced, lowered, threading.BoundedSemaphore(concurrency))
        entry.plan = build_plan(graph, lowered)
        entry.quiet = not entry.plan
        entry.layouts = exact_layouts(traced.params)
        entry.host_reads_inputs = any(f.source is Source.INPUT for f in fetches.values())
        if (
            entry.layouts is not None
            and not entry.host_reads_inputs
            and lowered.mesh is None
            and lowered.real_plan is None  # its calls' host arguments end with the RealShapes
        ):
            entry.staging = StagingPool()
        if graph.feeds:
            entry.feeder = Feeder(
                graph, sum(len(spec.defs) for spec in traced.params), kept=traced.returns
            )
        if traced.return_tree is not None:
            entry.results = Results(
                [fetches[id(b)] for b in traced.returns],
                [b.is_dynamic for b in traced.returns],
                traced.return_tree,
                lowered.pieces,
            )
            entry.returns_one_blob = entry.results.one_blob
        entry.return_kind, entry.return_inner = _return_kind(traced.return_annotation)
        entry.device_inputs_all = lowered.device_inputs == list(range(len(traced.params)))
        entry.writes_state = lowered.writes_state
        if (
            entry.staging is not None  # fixed shapes, no argument read back, one device
            and entry.quiet
            and entry.feeder is None
            and not lowered.host_kernels
            and lowered.watch_fn is None
            and entry.return_kind is ReturnKind.BLOCKING
            and entry.return_inner is tp.Numpy
            and entry.returns_one_blob
        ):
            entry.direct_output = entry.results.fetches[0].index
        return entry


def _return_kind(ann: Any) -> tuple[ReturnKind, Any]:
    if ann is None or ann is type(None):
        return ReturnKind.NONE, None
    if ann is inspect.Signature.empty:
        return ReturnKind.LAZY, None
    if typing.get_origin(ann) is tp.Callback:
        return ReturnKind.CALLBACK, typing.get_args(ann)[0]
    return ReturnKind.BLOCKING, ann
