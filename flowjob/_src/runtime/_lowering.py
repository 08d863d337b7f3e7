"""Lowers a job graph to one jitted JAX function: forward, backward and optimizer update.

Watched values are extra outputs (this module picks them: ``host_blobs``, the ``Fetch`` of each
returned or watched blob and of each watched gradient); the step functions it jits are the
forward program (``_program.py``) and the train step (``_train_step.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import jax

from .. import kernels
from ..errors import JobDefinitionError
from ..graph import (
    Blob,
    HostDelivery,
    JobGraph,
    OpKind,
    VariableStore,
    View,
    has_host_kernels,
    warn_unreachable_diff,
)
from . import _eager_kernels, _sharding, _tuning
from ._delivery import Fetch, Source
from ._dynamic import RealShapePlan
from ._program import _PredictStep
from ._train_step import _TrainStep


@dataclass
class LoweredJob:
    graph: JobGraph
    fn: Any
    state_names: list[str]
    device_inputs: list[int]
    fetches: dict[int, Fetch]  # id(blob) -> Fetch
    diff_watches: list[HostDelivery]  # the watch_diffs that have a gradient
    train: bool
    mesh: Any = None  # jax Mesh when the job spans several devices
    state_shardings: dict[str, Any] | None = None
    input_shardings: tuple[Any, ...] = ()
    pieces: int = 1  # devices of a mirrored-view job (results split per device)
    # Train jobs: the TrainStep variable, kept on the host and passed in as the step's third
    # argument (a donated scalar in the state measurably slows every step on the CPU).
    step_name: str | None = None
    # Dynamic blobs reach the device: their real shapes per call (the vector of those the
    # program reads is its last input when it reads any).
    real_plan: RealShapePlan | None = None
    # id(watch_diff) -> where its gradient is among the outputs (after the fetched values)
    diff_fetches: dict[int, Fetch] = field(default_factory=dict)
    # flow.summary.watch_model: the program of the steps that log (every watch_every-th),
    # its extra outputs (after the watched gradients) and their host writer
    watch_fn: Any = None
    watch_every: int = 0
    watch_fetches: tuple[Fetch, ...] = ()
    watch_writer: Any = None
    # The step function before jit: its ``forwarded`` outputs (known once traced) are the
    # step's own inputs handed back, which the host copies rather than writes into.
    step: Any = None
    # A host kernel runs inside: the state is not donated, and a call stores the new state
    # only once the step succeeded (runtime/_calls.py).
    host_kernels: bool = False
    # The step as ``fn`` jits it, for one device (None: sharded, or eager): a train step's
    # kernels are re-checked on it (runtime/_step_kernels.py).
    traced: Any = None

    @property
    def writes_state(self) -> bool:
        """The program returns the new state (its state argument is donated): train jobs,
        and predict jobs that assign variables."""
        return self.train or bool(self.graph.assigns)


def matmul_precision() -> str:
    """JAX's matmul precision for a job's float32 products and convolutions, from
    ``flow.config.enable_tensor_float_32_compute`` (OneFlow's default, on: TensorFloat-32 on
    GPUs that have it; off: full float32). The CPU computes float32 either way."""
    on = _tuning.settings.get("config.enable_tensor_float_32_compute", True)
    return "tensorfloat32" if on else "float32"


class TracedFor:
    """A job's step traced for its devices: op lowerings pick their kernels for
    ``platform`` (never the CPU-only oneDNN call in a GPU program) and products and
    convolutions take ``precision`` (``jax.default_matmul_precision``), whatever the
    process-wide JAX settings are. Attributes other than the call are the step's."""

    def __init__(self, step: Any, platform: str, precision: str, eager: bool = False) -> None:
        self.step = step
        self.platform = platform
        self.precision = precision
        self.eager = eager  # run op by op, each op through its cached kernel
        # a predict step runs its ops forward only (kernels are chosen for that)
        self.differentiated = not isinstance(step, _PredictStep)

    def __call__(self, *args: Any) -> Any:
        lowering = kernels.lowering_for(self.platform, self.differentiated)
        with lowering, jax.default_matmul_precision(self.precision):
            if not self.eager:
                return self.step(*args)
            with _eager_kernels.eager_kernels():
                return self.step(*args)


def _loss_dependencies(graph: JobGraph) -> set[int]:
    """ids of every blob some loss depends on (walking op inputs backwards)."""
    seen: set[int] = set()
    stack = list(graph.losses)
    while stack:
        blob = stack.pop()
        if id(blob) in seen:
            continue
        seen.add(id(blob))
        stack.extend(blob.op.inputs)
    return seen


def _diff_watches(graph: JobGraph) -> list[HostDelivery]:
    watches = [d for d in graph.deliveries if d.diff]
    if not watches:
        return []
    if not graph.is_train:
        for w in watches:
            warn_unreachable_diff(w, "gradients exist only in train jobs")
        return []
    deps = _loss_dependencies(graph)
    kept = []
    for w in watches:
        if id(w.blob) not in deps:
            warn_unreachable_diff(w, "no loss depends on this blob")
        else:
            kept.append(w)
    return kept


def host_blobs(graph: JobGraph, returns: list[Blob]) -> list[Blob]:
    """Every blob whose value the host needs after a call, without duplicates."""
    blobs: list[Blob] = []
    seen: set[int] = set()
    candidates = [*returns, *(b for d in graph.deliveries if not d.diff for b in d.blobs)]
    for blob in candidates:
        if id(blob) not in seen:
            seen.add(id(blob))
            blobs.append(blob)
    return blobs


def lower(
    graph: JobGraph, returns: list[Blob], store: VariableStore, jit: bool = True
) -> LoweredJob:
    """Builds the jitted step function of ``graph``; creates optimizer state variables.
    ``jit=False`` (eager mode): the step function as it is, run op by op on one device (a
    consistent-view job placed on several computes the same values there)."""
    train = graph.is_train
    if train and not graph.losses:
        raise JobDefinitionError(
            f"train job {graph.name!r} has no loss: call optimizer.minimize(loss) or "
            "flow.losses.add_loss(loss) in its body"
        )
    diff_watches = _diff_watches(graph)
    real_plan = RealShapePlan(graph) if any(op.real_shape for op in graph.ops) else None
    # Host code runs inside the step (a NumPy kernel, a real-shape rule): it may fail there.
    host_kernels = has_host_kernels(graph) or (real_plan is not None and real_plan.host_rules)
    arg_index = {id(b): i for i, b in enumerate(graph.inputs)}

    device_consumed = {id(b) for op in graph.ops if op.kind is OpKind.DEVICE for b in op.inputs}
    device_consumed |= {id(w.blob) for w in diff_watches}
    device_consumed |= {id(value) for _, value in graph.assigns}  # flow.assign(var, argument)
    device_inputs = [i for i, b in enumerate(graph.inputs) if id(b) in device_consumed]

    fetches: dict[int, Fetch] = {}
    device_fetch: list[Blob] = []
    _check_micro_batches(graph, host_blobs(graph, returns))
    for blob in host_blobs(graph, returns):
        if id(blob) in arg_index:
            fetches[id(blob)] = Fetch(Source.INPUT, arg_index[id(blob)])
        else:
            fetches[id(blob)] = Fetch(Source.OUTPUT, len(device_fetch), _real_key(real_plan, blob))
            device_fetch.append(blob)
    # the program's outputs: fetched values, the real shapes of those that depend on data,
    # then the watched gradients
    computed = [] if real_plan is None else [b for b in device_fetch if id(b) in real_plan.computed]
    first_diff = len(device_fetch) + len(computed)
    diff_fetches = {
        id(w): Fetch(Source.OUTPUT, first_diff + i, _real_key(real_plan, w.blob))
        for i, w in enumerate(diff_watches)
    }

    state_names = list(graph.variables)
    input_blobs = [graph.inputs[i] for i in device_inputs]
    devices = _sharding.job_devices(graph)
    mesh = _sharding.job_mesh(devices)
    if not jit and graph.config.logical_view.name is not View.MIRRORED:
        # Eager, consistent view: every blob is whole, so one device computes the same values
        # its placement's devices would (OneFlow's eager 2-device variables hold copies).
        mesh = None
    if real_plan is not None and real_plan.tracked:
        _check_data_dependent(graph, real_plan, mesh, diff_watches)
        for k, blob in enumerate(computed):
            f = fetches[id(blob)]
            fetches[id(blob)] = Fetch(f.source, f.index, f.real, len(device_fetch) + k)
    mirrored = mesh is not None and graph.config.logical_view.name is View.MIRRORED
    if train:
        step = _TrainStep(
            graph,
            store,
            state_names,
            input_blobs,
            device_fetch,
            diff_watches,
            mesh,
            mirrored,
            real_plan,
        )
        state_names = step.state_names
    else:
        step = _PredictStep(graph, input_blobs, device_fetch, mesh, mirrored, real_plan)
    traced = TracedFor(step, devices[0].platform, matmul_precision(), eager=not jit)
    watching = step.watching() if train and step.watch is not None else None
    if watching is not None:
        watching = TracedFor(watching, devices[0].platform, matmul_precision(), eager=not jit)
    if mesh is None:
        if not jit:
            fn, watch_fn = traced, watching
        else:
            writes = train or bool(graph.assigns)
            # see _sharding.state_donation; data-dependent real shapes run on one device only
            donate = () if host_kernels else (0,)
            platform = devices[0].platform
            jit_for = _sharding.jit_for
            fn = jit_for(traced, platform, **({"donate_argnums": donate} if writes else {}))
            watch_fn = watching and jit_for(watching, platform, donate_argnums=donate)
        lowered = LoweredJob(graph, fn, state_names, device_inputs, fetches, diff_watches, train)
        if jit and train:
            lowered.traced = traced
    else:
        jitted = (
            _sharding.jit_mirrored(graph, traced, state_names, len(device_inputs), mesh)
            if mirrored
            else _sharding.jit_sharded(graph, traced, store, state_names, input_blobs, mesh)
        )
        watch_fn = None
        if watching is not None:  # mirrored jobs refuse watch_model (_TrainStep)
            watch_fn = _sharding.jit_sharded(
                graph, watching, store, state_names, input_blobs, mesh
            ).fn
        lowered = LoweredJob(
            graph,
            jitted.fn,
            state_names,
            device_inputs,
            fetches,
            diff_watches,
            train,
            mesh,
            jitted.state_shardings,
            jitted.input_shardings,
            jitted.pieces,
        )
    if train:
        lowered.step_name = step.step_name
    lowered.real_plan = real_plan
    lowered.diff_fetches = diff_fetches
    if watching is not None:
        lowered.watch_fn, lowered.watch_every = watch_fn, step.watch.every_n_steps
        first = first_diff + len(diff_watches)
        lowered.watch_fetches = tuple(
            Fetch(Source.OUTPUT, first + i) for i in range(step.watch_outputs)
        )
        lowered.watch_writer = step.watch.writer(step.trained, step.update.loss_scale_used)
    lowered.step = step
    lowered.host_kernels = host_kernels
    return lowered


def _check_micro_batches(graph: JobGraph, blobs: list[Blob]) -> None:
    """Results and watched blobs are whole values: micro-batches gathered first. (A loss may
    be micro-batched: its micro-batches' gradients add up, each divided by its own element
    count, as OneFlow accumulates them.)"""
    for blob in blobs:
        if blob.micro_batches > 1:
            raise JobDefinitionError(
                f"job {graph.name!r}: {blob.lbn} is {blob.micro_batches} micro-batches (from "
                "flow.unpack or flow.repeat); gather them with flow.pack or flow.acc before "
                "returning or watching it"
            )


def _check_data_dependent(
    graph: JobGraph, plan: RealShapePlan, mesh: Any, diff_watches: list[HostDelivery]
) -> None:
    """Blobs whose real shape depends on data: one-device jobs, gradients not watched."""
    for w in diff_watches:
        if id(w.blob) in plan.computed:
            raise JobDefinitionError(
                f"job {graph.name!r}: flow.watch_diff of {w.blob.lbn}, whose size depends on "
                "the data, is not supported yet; watch the gradient of a blob it comes from"
            )
    if mesh is None:
        return
    op = next(op for op in graph.ops if id(op) in plan.tracked)
    raise JobDefinitionError(
        f"job {graph.name!r}: op {op.name!r} ({op.op_type}) makes a blob whose size depends on "
        "the data; flowjob runs such ops on one device only, not yet on several"
    )


def _real_key(plan: RealShapePlan | None, blob: Blob) -> int | None:
    return id(blob) if plan is not None and blob.is_dynamic else None
