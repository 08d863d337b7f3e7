"""Eager train calls whose graph repeats run one compiled train step.

An eager train call runs its body op by op (blobs have values there), then needs the
gradients and the update. Replaying the graph op by op under ``jax.value_and_grad`` costs
JAX's tracing of every op on every call, several times the step itself. Most bodies record
the same graph on every call: the same ops with the same attributes, shapes and wiring, the
same variables and optimizer. For those, the step after the body is the lazy job's: one
``jax.jit`` function of (state, inputs, train step), compiled once per graph structure. A
structure is compiled the second time it is seen, so a body whose graph changes from call to
call (Python control flow on values, new shapes) keeps the op-by-op replay and never waits
for a compile that would not be reused.

The key (``structure``) holds everything the train step reads from the graph; a graph with
something it cannot compare (attributes that are arrays, a data-dependent size, a host
kernel, ``watch_model``) has none and is always replayed. The handlers, results and data
are the call's own: only the program is shared.
"""

from __future__ import annotations

import collections
import dataclasses
import enum
import threading
from collections.abc import Hashable
from typing import Any

import numpy as np

from ..graph import Blob, JobGraph, OpKind, VariableStore, has_host_kernels, op_key
from . import _sharding
from ._delivery import Fetch
from ._lowering import LoweredJob, TracedFor, host_blobs, lower, matmul_precision
from ._trace import TracedJob

# Per job: bodies that alternate between a few graphs. Each keeps the graph of the call that
# compiled it, and so that call's values (its blobs may still be read).
MAX_STRUCTURES = 4


class _Program:
    """One structure's compiled step: its ``LoweredJob`` from the call that compiled it, and
    where that job's fetched blobs and watched gradients are, to rebind them to a new call's
    graph."""

    __slots__ = ("seen", "lowered", "fetches", "diffs")

    def __init__(self) -> None:
        self.seen = 0
        self.lowered: LoweredJob | None = None
        self.fetches: list[tuple[tuple[int, int], Fetch]] = []  # (op, output) -> its Fetch
        self.diffs: list[tuple[int, Fetch]] = []  # delivery index -> its gradient's Fetch

    def compile(self, lowered: LoweredJob, where: dict[int, tuple[int, int]]) -> None:
        eager = lowered.fn
        # Not donated: the body's blobs still hold the variables' arrays. (Every lowering
        # traces: the op's output shapes came from tracing it.)
        lowered.fn = _sharding.jit_for(
            TracedFor(eager.step, eager.platform, eager.precision), eager.platform
        )
        deliveries = {id(d): i for i, d in enumerate(lowered.graph.deliveries)}
        self.fetches = [(where[b], f) for b, f in lowered.fetches.items()]
        self.diffs = [(deliveries[w], f) for w, f in lowered.diff_fetches.items()]
        self.lowered = lowered

    def rebind(self, graph: JobGraph) -> LoweredJob:
        """The compiled job for ``graph``, a call's graph of the same structure."""
        blobs = [op.outputs for op in graph.ops]
        watches = [graph.deliveries[i] for i, _ in self.diffs]
        return dataclasses.replace(
            self.lowered,
            graph=graph,
            fetches={id(blobs[i][k]): f for (i, k), f in self.fetches},
            diff_watches=watches,
            diff_fetches={id(w): f for w, (_, f) in zip(watches, self.diffs)},
        )


class EagerPrograms:
    """One job's compiled train steps by graph structure (least recently used dropped)."""

    def __init__(self) -> None:
        self._programs: collections.OrderedDict[Hashable, _Program] = collections.OrderedDict()
        self._lock = threading.Lock()
        self.last_compiled = False  # the last call's step was compiled already

    def lower(self, traced: TracedJob, store: VariableStore) -> tuple[LoweredJob, bool]:
        lowered, compiled = self._lower(traced, store)
        self.last_compiled = compiled
        return lowered, compiled

    def _lower(self, traced: TracedJob, store: VariableStore) -> tuple[LoweredJob, bool]:
        """An eager train call's ``LoweredJob`` and whether its step is compiled already (the
        call need not warm it): the compiled step of its structure when the structure was seen
        before, else the op-by-op one."""
        graph, returns = traced.graph, traced.returns
        found = structure(graph, returns)
        if found is None:
            return lower(graph, returns, store, jit=False), False
        key, where = found
        with self._lock:
            program = self._programs.get(key)
            if program is None:
                program = self._programs[key] = _Program()
                while len(self._programs) > MAX_STRUCTURES:
                    self._programs.popitem(last=False)
            self._programs.move_to_end(key)
            program.seen += 1
            if program.lowered is not None:
                return program.rebind(graph), True
        lowered = lower(graph, returns, store, jit=False)
        if program.seen >= 2 and lowered.mesh is None:
            with self._lock:
                program.compile(lowered, where)
        return lowered, False


def structure(graph: JobGraph, returns: list[Blob]) -> tuple[Hashable, dict] | None:
    """What an eager train call's step computes, as a comparable value, and where each blob is
    ((op, output) by id); ``None`` when it has none."""
    if graph.model_watch is not None or has_host_kernels(graph):
        return None
    where: dict[int, tuple[int, int]] = {}
    ops = []
    try:
        for i, op in enumerate(graph.ops):
            if op.real_shape is not None:  # real shapes are values of each call
                return None
            computation = None
            if op.kind is OpKind.DEVICE:
                computation = op_key(op.lowering, op.attrs)
                if computation is None:
                    return None
            ops.append(
                (
                    op.kind,
                    op.op_type,
                    op.name if op.kind is OpKind.VARIABLE else None,
                    computation,
                    op.rng,
                    op.device_tag,
                    None if op.placement is None else _value(op.placement),
                    tuple(where[id(b)] for b in op.inputs),
                    tuple((b.shape, b.dtype, b.is_dynamic, b.micro_batches) for b in op.outputs),
                )
            )
            for k, blob in enumerate(op.outputs):
                where[id(blob)] = (i, k)

        def at(blobs: Any) -> tuple:
            return tuple(where[id(b)] for b in blobs)

        key = (
            tuple(ops),
            at(graph.inputs),
            at(graph.losses),
            at(host_blobs(graph, returns)),
            tuple((d.diff, at(d.blobs)) for d in graph.deliveries),
            tuple((name, where[id(blob)]) for name, blob in graph.assigns),
            _value(_optimizer(graph)),
            matmul_precision(),
        )
        hash(key)
    except (KeyError, TypeError):  # a blob from elsewhere, a value that does not compare
        return None
    return key, where


def _optimizer(graph: JobGraph) -> Any:
    return graph.optimizer if graph.optimizer is not None else graph.config.implicit_optimizer()


def _value(obj: Any, depth: int = 0) -> Hashable:
    """``obj`` as a hashable value: plain values as they are, containers and flowjob's own
    objects (optimizers, schedulers, clipping) by their contents, functions by identity.
    Raises ``TypeError`` for anything else."""
    if depth > 12:
        raise TypeError("nested too deeply")
    if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes, enum.Enum)):
        return (type(obj), obj)
    if isinstance(obj, (list, tuple)):
        return (type(obj), tuple(_value(v, depth + 1) for v in obj))
    if isinstance(obj, dict):
        return (dict, tuple((_value(k, depth + 1), _value(v, depth + 1)) for k, v in obj.items()))
    if isinstance(obj, np.ndarray):
        return (np.ndarray, obj.dtype.str, obj.shape, obj.tobytes())
    if isinstance(obj, np.generic):
        return (type(obj), obj.item())
    if type(obj).__module__.startswith("flowjob") and hasattr(obj, "__dict__"):
        return (type(obj), _value(vars(obj), depth + 1))
    if callable(obj) and hasattr(obj, "__code__"):  # a user function (a custom schedule)
        return ("function", obj)  # held by the key: its identity is not reused
    raise TypeError(f"{type(obj).__name__} is not compared by value")
