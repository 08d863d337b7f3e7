"""Eager mode's calls (OneFlow v0.4's ``flow.enable_eager_execution(True)``).

The body runs on every call. Its graph is recorded as lazy tracing records it (the ops, the
deliveries, the losses and optimizer) while ``Evaluator``, the graph's eager hook, evaluates
each op as it is recorded with ``run_op``, the programs' own evaluation, so blobs have values
in the body. The recorded graph then becomes the call's own ``CompiledJob``, lowered without
``jax.jit``: a predict call's outputs are the values computed in the body; a train call
replays the graph under ``jax.value_and_grad`` (``_train_step.py``, op by op) for the
gradients of the losses and watch_diffs and applies the optimizer's ``TrainUpdate``. The
call then completes through ``Calls`` and the ``Deliverer`` like a lazy one (results,
handlers, host ops, callbacks), on the same variables.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import ConfigError
from ..graph import (
    Blob,
    FeedOp,
    JobType,
    OpKind,
    OpNode,
    VariableStore,
    View,
    host_only_error,
    is_host_only,
    raise_kernel_error,
    runs_host_kernel,
)
from . import _config, _eager_kernels
from ._arguments import _pad, prepare_arguments
from ._compiled import CompiledJob
from ._delivery import Source
from ._dynamic import infer_real_shapes
from ._feed import checked_feed, feed_value
from ._lowering import lower
from ._program import _call_key, run_op
from ._real_shape import at_real_shape, fits_padded, real_shapes
from ._trace import ParamSpec, trace
from ._train_step import TRAIN_STEP_PREFIX

# The call's random key as one compiled program (op by op it is several dispatches).
_jitted_call_key = jax.jit(functools.partial(_call_key, mirrored=False))


def eager_call_key(counter: int) -> jax.Array:
    """Eager call ``counter``'s random key, as a lazy call's (``_program._call_key``)."""
    return _jitted_call_key(np.uint32(counter % 2**32))


class Evaluator:
    """Evaluates each op of an eager call's graph as the body records it; keeps the values."""

    def __init__(
        self,
        job_name: str,
        store: VariableStore,
        inputs: list[tuple[Any, tuple[int, ...] | None]],
        key: Any,
        streams: dict[str, Any] | None = None,
        deferred: bool = False,
    ):
        self.job_name = job_name
        self.store = store
        self.inputs = inputs  # (value, real shape if dynamic) of each argument, in order
        self.real: dict[int, tuple[int, ...]] = {}  # real shapes of the dynamic blobs
        self.key = key  # the call's random key (the op's position picks its stream)
        # The data sources (op name -> stream). A job body's start over at each call, as in
        # OneFlow v0.4, whose eager mode builds an op made by user_op_builder anew at every
        # call (a stateless call): a reader reads its first batch again, a seeded source its
        # first values. The eager data modules (nn.OfrecordReader...), whose kernels OneFlow
        # built once per module, pass their own dict and continue (run_eagerly).
        self.streams: dict[str, Any] = {} if streams is None else streams
        self.values: dict[int, Any] = {}  # id(blob) -> jax.Array
        self.host: dict[int, Any] = {}  # the data pipeline's values, records included
        self.fed: list[np.ndarray] = []  # its program inputs, in the order of graph.inputs
        self._next_input = 0
        # Deferred: device ops are evaluated when a value is read (``value``) or by
        # ``flush``; a call whose step is compiled may never need them (_eager_programs.py).
        self.deferred = deferred
        self._pending: list[tuple[int, OpNode]] = []

    def evaluate(self, op: OpNode, index: int) -> None:
        if op.kind is OpKind.INPUT:  # recorded in placeholder order
            blob = op.outputs[0]
            value, real = self.inputs[self._next_input]
            self._next_input += 1
            # What a data pipeline op reading the argument sees: a dynamic blob's real part,
            # a tensor list as it is.
            self.host[id(blob)] = value if real is None else _cut(value, real)
            if is_host_only(blob):  # a tensor list: only the data pipeline reads it
                return
            self.values[id(blob)] = value if self.deferred else jnp.asarray(value)
            if blob.is_dynamic:
                self.real[id(blob)] = real
        elif op.kind is not OpKind.FEED:  # feed ops run once recorded whole (``feed``)
            if self.deferred and op.kind is OpKind.DEVICE:
                if _plain_device_op(op):
                    self._pending.append((index, op))
                    return
                self.flush()  # what it reads, and earlier ops before its host code
            self._run(op, index)

    def flush(self) -> None:
        """Evaluates the deferred ops (in the order they were recorded)."""
        pending, self._pending = self._pending, []
        for index, op in pending:
            self._run(op, index)

    def _run(self, op: OpNode, index: int) -> None:
        real = None
        if op.real_shape is not None:  # a dynamic input: padded values, real shapes
            real = {
                id(b): jnp.asarray(self.real[id(b)], jnp.int32)
                for b in op.inputs
                if id(b) in self.real
            }
            infer_real_shapes(self.job_name, op, self.real)
        try:
            with _eager_kernels.eager_kernels():
                run_op(index, op, self.values, self.store.values, {}, self.key, real=real)
        except Exception as exc:  # a host kernel's error is raised as itself
            raise_kernel_error(exc)
            raise
        if op.real_shape is not None and op.real_shape.device is not None:
            self._data_dependent(op, real)

    def _data_dependent(self, op: OpNode, real: dict[int, Any]) -> None:
        """The real shapes of an op whose output sizes depend on its input values (argwhere):
        the rule ran on upper bounds; the values are here, so the op's own rule gives them."""
        args = [self.values[id(b)] for b in op.inputs]
        ins = tuple(real.get(id(b), jnp.asarray(b.shape, jnp.int32)) for b in op.inputs)
        out = op.real_shape.device(*args, real=ins, **op.attrs)
        for blob, shape in zip(
            op.outputs, out if isinstance(out, tuple) else (out,) * len(op.outputs)
        ):
            bound = blob.shape
            self.real[id(blob)] = tuple(
                min(max(int(n), 0), m) for n, m in zip(np.asarray(shape).reshape(-1), bound)
            )

    def feed(self, feed: FeedOp) -> None:
        """Runs one data pipeline op (a source reads its stream's next batch)."""
        op = feed.op
        stream = self.streams.get(op.name)
        if feed.source and stream is None:
            stream = self.streams[op.name] = feed.fn()
        inputs = [self.host[id(b)] for b in op.inputs]
        out = feed_value(self.job_name, feed, stream, inputs)
        for blob, value in zip(op.outputs, out if len(op.outputs) > 1 else (out,)):
            self.host[id(blob)] = value
            if not is_host_only(blob):
                fed = checked_feed(blob, value)
                self.fed.append(fed)
                if isinstance(fed, list):  # a dynamic output: padded, with its real shape
                    self.real[id(blob)] = tuple(fed[0].shape)
                    fed = _pad(fed[0], blob.shape)
                self.values[id(blob)] = jnp.asarray(fed)

    def value(self, blob: Blob) -> np.ndarray:
        if id(blob) not in self.values and self._pending:
            self.flush()
        if id(blob) not in self.values:  # a record or tensor buffer of the data pipeline
            raise host_only_error(blob, "read with numpy()")
        value = self.values[id(blob)]
        # an argument kept as given (deferred): a copy, not the caller's own array
        value = np.array(value) if isinstance(value, np.ndarray) else np.asarray(value)
        real = self.real.get(id(blob))  # a dynamic blob: cut the padding off
        return value if real is None else _cut(value, real)


def _plain_device_op(op: OpNode) -> bool:
    """A device op that may run later: no host kernel (user code with effects), no real
    shapes (their rules run as the op is recorded)."""
    return op.real_shape is None and not runs_host_kernel(op)


def _cut(value: np.ndarray, real: tuple[int, ...]) -> np.ndarray:
    return value[tuple(slice(0, n) for n in real)]


class _Fed:
    """The call's data pipeline inputs, computed in the body (``Feeder``'s place)."""

    def __init__(self, values: list[np.ndarray]):
        self.values = values

    def next(self, host_args: list[Any]) -> list[Any]:
        return self.values  # the body already read the arguments it needed

    def close(self) -> None:
        pass


def eager_params(
    job: Any, args: tuple[Any, ...], padded: bool
) -> tuple[list[ParamSpec], list[Any]]:
    """The placeholders the call's blobs are made from, and (value, real shape) per argument,
    as a lazy call sees them (runtime/_real_shape.py): a ``tp.ListNumpy`` argument is a
    dynamic blob padded to its placeholder (``blob.shape`` is the declared one, as OneFlow's
    eager blobs have it), except in the one-device mirrored view when not ``padded``: then a
    blob of its array's shape."""
    params, _ = job.parameters
    real_shaped = job.config.logical_view.name is View.MIRRORED and not padded
    shapes = real_shapes(params, args) if real_shaped else None
    if shapes is not None:  # checked as a lazy variant's: at the real shapes
        params = [
            spec
            if shape is None
            else ParamSpec(spec.name, [at_real_shape(spec.defs[0], shape)], False)
            for spec, shape in zip(params, shapes)
        ]
    host, _ = prepare_arguments(job.__name__, params, args, [], private=False)
    flat = iter(host)
    specs, values = [], []
    for spec in params:
        defs = []
        for d in spec.defs:
            value = next(flat)
            if not isinstance(value, list):  # a tp.Numpy or tp.ListListNumpy argument
                values.append((value, None))
            elif real_shaped:
                d = at_real_shape(d, tuple(value[0].shape))
                values.append((value[0], None))
            else:
                values.append((_pad(value[0], d.shape), tuple(value[0].shape)))
            defs.append(d)
        specs.append(ParamSpec(spec.name, defs, spec.is_tuple))
    return specs, values


def run_body(job: Any, args: tuple[Any, ...], store: VariableStore) -> CompiledJob:
    """Runs ``job``'s body eagerly on ``args``; returns the call's ``CompiledJob`` (the caller
    completes the call with it: ``Session.run`` or ``Session.launch``).

    A one-device mirrored job's ListNumpy arguments are first padded dynamic blobs, as in a
    lazy call; a body that fails on them (an op that takes no dynamic blob) runs again at the
    arguments' real shapes, from then on for that job (``job.eager_padded``), as a lazy job
    falls back to variants traced at real shapes."""
    _config.start_backend()  # as a lazy job's first compile: machines and devices are final
    train = job.job_type == JobType.TRAIN
    if train:
        stored = store.values.get(TRAIN_STEP_PREFIX + job.__name__)
        counter = 0 if stored is None else int(np.asarray(stored).reshape(-1)[0])
    else:
        counter = job.eager_calls % (2**32)
        job.eager_calls += 1
    padded = job.eager_padded is not False and _fits_padded(job, args)
    if not padded or job.eager_padded:
        return _run_body(job, args, store, counter, padded)
    try:
        entry = _run_body(job, args, store, counter, padded=True)
    except Exception:  # noqa: BLE001 - an op refused dynamic blobs (a real error recurs)
        job.eager_padded = False
        return _run_body(job, args, store, counter, padded=False)
    job.eager_padded = True
    return entry


def _fits_padded(job: Any, args: tuple[Any, ...]) -> bool:
    """Whether the job is a mirrored one with ListNumpy arguments that padded blobs hold."""
    params = job.mirrored_dynamic_params()
    return bool(params) and fits_padded(params, args)


def _run_body(
    job: Any, args: tuple[Any, ...], store: VariableStore, counter: int, padded: bool
) -> CompiledJob:
    params, values = eager_params(job, args, padded)
    train = job.job_type == JobType.TRAIN
    # A body whose last call ran a compiled step most likely records that graph again: its
    # ops wait until a value is read, or until its graph turns out to differ.
    deferred = train and job.eager_programs.last_compiled
    evaluator = Evaluator(job.__name__, store, values, eager_call_key(counter), deferred=deferred)
    traced = trace(
        job.__name__,
        job.fn,
        job.job_type,
        job.config,
        store,
        job.definition_locals,
        eager=evaluator,
        params=params,
        return_annotation=job.parameters[1],
        padded_mirrored=padded,
    )
    if train:
        lowered, compiled = job.eager_programs.lower(traced, store)
        if not compiled:  # replayed op by op: the body's ops run first, as recorded
            evaluator.flush()
    else:
        lowered, compiled = lower(traced.graph, traced.returns, store, jit=False), True
    if lowered.mesh is not None:
        raise ConfigError(
            f"job {job.__name__!r} runs eagerly in the mirrored view on {lowered.mesh.size} "
            "devices: flowjob's eager mode runs a job on one device (consistent-view jobs "
            "compute their whole blobs there); place it on one device, use the consistent "
            "view, or define it with eager execution off"
        )
    if not train:
        lowered.fn, count = _computed(lowered, evaluator, traced.graph.assigns)
        # Its outputs may be a variable's or an argument's own array: the host copies them
        # all rather than writing into one (see _program.forwarded).
        lowered.step.forwarded = frozenset(range(count))
    entry = CompiledJob.build(traced, lowered, job.config.concurrency)
    entry.warm = compiled  # else Calls compiles a jitted step before its first run
    if entry.feeder is not None:
        entry.feeder = _Fed(evaluator.fed)
    return entry


def _computed(lowered: Any, evaluator: Evaluator, assigns: list) -> tuple[Any, int]:
    """A predict call's program and its output count: its outputs were computed in the body;
    it also hands back the body's ``flow.assign`` values, which the caller writes back as
    for a lazy call."""
    outputs = sorted(
        (fetch.index, blob_id)
        for blob_id, fetch in lowered.fetches.items()
        if fetch.source is Source.OUTPUT
    )
    # A data-dependent size goes out after the values, as the lazy program returns it.
    reals = sorted(
        (fetch.real_output, blob_id)
        for blob_id, fetch in lowered.fetches.items()
        if fetch.real_output is not None
    )
    computed = tuple(evaluator.values[blob_id] for _, blob_id in outputs) + tuple(
        np.asarray(evaluator.real[blob_id], np.int32) for _, blob_id in reals
    )
    assigned = {name: evaluator.values[id(blob)] for name, blob in assigns}

    def program(state: Any, inputs: Any, counter: int) -> Any:
        # As a lazy predict program that assigns: the new state first; the caller keeps it.
        return ({**state, **assigned}, computed) if assigns else computed

    return program, len(computed)
