"""Lowers a job graph to one jitted JAX function: forward, backward and optimizer update.

Watched values are extra outputs; a watched gradient is the gradient with respect to a zero
perturbation added to the blob, so it costs one output buffer and no extra backward work.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import JobDefinitionError
from ..graph import (
    Blob,
    HostDelivery,
    JobGraph,
    OpKind,
    VariableStore,
    View,
    valid_mask,
    warn_unreachable_diff,
)
from ..optimizer import TrainUpdate, from_model_update_conf, sparse_variables
from . import _int_grad, _sharding
from ._delivery import Fetch, Source
from ._dynamic import RealShapePlan, real_of

TRAIN_STEP_PREFIX = "System-Train-TrainStep-"


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


_SBP_OPS = ("with_distribute", "parallel_cast")


def _interpret(
    graph: JobGraph,
    state: dict[str, Any],
    inputs: dict[int, Any],
    perturb: dict[int, Any],
    key: Any,
    mesh: Any = None,
    real: dict[int, Any] | None = None,
    promoted: set[int] | None = None,
) -> dict[int, Any]:
    """``real``: the real shape arrays of the dynamic blobs masked lowerings read.
    ``promoted``: integer blobs carried as floats for their gradient (runtime/_int_grad.py)."""
    env: dict[int, Any] = {}
    for i, op in enumerate(graph.ops):
        if op.kind is OpKind.INPUT or op.kind is OpKind.FEED:  # an argument, or pipeline outputs
            for blob in op.outputs:
                if id(blob) in inputs:
                    env[id(blob)] = inputs[id(blob)]
        elif op.kind is OpKind.VARIABLE:
            env[id(op.outputs[0])] = state[op.name]
        elif op.kind is OpKind.DEVICE:
            args = [env[id(b)] for b in op.inputs]
            kwargs = dict(op.attrs)
            if op.rng:
                kwargs["key"] = _op_key(key, i, op.attrs.get("seed"))
            if op.real_shape is not None and op.real_shape.masked is not None:
                kwargs["real"] = tuple(real_of(real, b) for b in op.inputs)
                out = op.real_shape.masked(*args, **kwargs)
            elif promoted is not None and _int_grad.on_integer_path(op, promoted):
                out = _int_grad.run_op(op, args, kwargs, promoted)
            else:
                out = op.lowering(*args, **kwargs)
            if op.op_type in _SBP_OPS and op.attrs.get("distribute") is not None:
                out = _sharding.constrain(out, op.attrs["distribute"], mesh)
            for blob, value in zip(op.outputs, out if isinstance(out, tuple) else (out,)):
                env[id(blob)] = value
        for blob in op.outputs:
            if id(blob) in perturb and id(blob) in env:
                if promoted is None:
                    env[id(blob)] = env[id(blob)] + perturb[id(blob)]
                else:
                    env[id(blob)] = _int_grad.perturb(
                        env[id(blob)], blob, perturb[id(blob)], promoted
                    )
    return env


def _build_optimizer(graph: JobGraph) -> Any:
    if graph.optimizer is not None:
        return graph.optimizer
    train = graph.config.train
    if train.configured:
        return from_model_update_conf(
            train.model_update or {"naive_conf": {}},
            train.primary_lr_value,
            train.secondary_lr_value,
        )
    raise JobDefinitionError(
        f"train job {graph.name!r} has no optimizer: call "
        "flow.optimizer.SGD(...).minimize(loss) in its body (or configure the legacy "
        "config.train.primary_lr + model_update_conf)"
    )


def lower(graph: JobGraph, returns: list[Blob], store: VariableStore) -> LoweredJob:
    """Builds the jitted step function of ``graph``; creates optimizer state variables."""
    train = graph.is_train
    if train and not graph.losses:
        raise JobDefinitionError(
            f"train job {graph.name!r} has no loss: call optimizer.minimize(loss) or "
            "flow.losses.add_loss(loss) in its body"
        )
    diff_watches = _diff_watches(graph)
    real_plan = RealShapePlan(graph) if any(op.real_shape for op in graph.ops) else None
    arg_index = {id(b): i for i, b in enumerate(graph.inputs)}

    device_consumed = {id(b) for op in graph.ops if op.kind is OpKind.DEVICE for b in op.inputs}
    device_consumed |= {id(w.blob) for w in diff_watches}
    device_inputs = [i for i, b in enumerate(graph.inputs) if id(b) in device_consumed]

    fetches: dict[int, Fetch] = {}
    device_fetch: list[Blob] = []
    for blob in host_blobs(graph, returns):
        if id(blob) in arg_index:
            fetches[id(blob)] = Fetch(Source.INPUT, arg_index[id(blob)])
        else:
            fetches[id(blob)] = Fetch(Source.OUTPUT, len(device_fetch), _real_key(real_plan, blob))
            device_fetch.append(blob)
    diff_fetches = {
        id(w): Fetch(Source.OUTPUT, len(device_fetch) + i, _real_key(real_plan, w.blob))
        for i, w in enumerate(diff_watches)
    }

    state_names = list(graph.variables)
    input_blobs = [graph.inputs[i] for i in device_inputs]
    mesh = _sharding.job_mesh(graph)
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
        step = _predict_step(graph, input_blobs, device_fetch, mesh, mirrored, real_plan)
    if mesh is None:
        fn = jax.jit(step, donate_argnums=(0,)) if train else jax.jit(step)
        lowered = LoweredJob(graph, fn, state_names, device_inputs, fetches, diff_watches, train)
    else:
        jitted = (
            _sharding.jit_mirrored(graph, step, state_names, len(device_inputs), mesh)
            if mirrored
            else _sharding.jit_sharded(graph, step, store, state_names, input_blobs, mesh)
        )
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
    return lowered


def _real_key(plan: RealShapePlan | None, blob: Blob) -> int | None:
    return id(blob) if plan is not None and blob.is_dynamic else None


def _op_key(call_key, index: int, seed: int | None):
    """The op's key for this call: by its position in the job, or, for an op given a seed,
    by the seed (as in OneFlow, random ops with one seed draw the same stream)."""
    if seed is None:
        return jax.random.fold_in(call_key, index)
    seeded = jax.random.fold_in(call_key, 0x7FFFFFFF)  # apart from the position keys
    return jax.random.fold_in(seeded, int(seed) & 0xFFFFFFFF)


def _call_key(counter, mirrored: bool):
    counter = jax.lax.convert_element_type(counter, jnp.uint32)  # a train step wraps around
    key = jax.random.fold_in(jax.random.PRNGKey(0), counter)
    if mirrored:  # each device draws its own dropout masks
        key = jax.random.fold_in(key, jax.lax.axis_index(_sharding.AXIS))
    return key


def _real_shapes(plan: RealShapePlan | None, input_blobs: list[Blob], inputs) -> dict | None:
    if plan is None or not plan.size:
        return None
    return plan.unpack(inputs[len(input_blobs)])


def _predict_step(
    graph: JobGraph,
    input_blobs: list[Blob],
    device_fetch: list[Blob],
    mesh,
    mirrored: bool = False,
    real_plan: RealShapePlan | None = None,
):
    def step(state, inputs, counter):
        key = _call_key(counter, mirrored)
        env = _interpret(
            graph,
            state,
            {id(b): x for b, x in zip(input_blobs, inputs)},
            {},
            key,
            None if mirrored else mesh,
            _real_shapes(real_plan, input_blobs, inputs),
        )
        return tuple(env[id(b)] for b in device_fetch)

    return step


class _TrainStep:
    """The whole train step as one pure function of (state, inputs, train step); the train
    step (the TrainStep variable's value before this step) also seeds the random ops."""

    def __init__(
        self,
        graph: JobGraph,
        store: VariableStore,
        variable_names: list[str],
        input_blobs: list[Blob],
        device_fetch: list[Blob],
        diff_watches: list[HostDelivery],
        mesh: Any = None,
        mirrored: bool = False,
        real_plan: RealShapePlan | None = None,
    ):
        self.graph = graph
        self.real_plan = real_plan
        self.mirrored = mirrored
        self.mesh = None if mirrored else mesh
        self.input_blobs = input_blobs
        self.device_fetch = device_fetch
        self.diff_watches = diff_watches
        self.integer_paths = _int_grad.needs_integer_paths(graph, [w.blob for w in diff_watches])
        self.optimizer = _build_optimizer(graph)
        # Trainable is per job: the flag of this job's own variable op.
        trainable = [
            n
            for n in variable_names
            if graph.variables[n].op.attrs["trainable"] and store.defs[n].dtype.is_floating
        ]
        self.trained = self.optimizer.variable_names(trainable)
        regularizers = {
            n: store.defs[n].regularizer
            for n in self.trained
            if store.defs[n].regularizer is not None
        }
        self.sparse = sparse_variables(graph, self.optimizer, self.trained, set(regularizers))
        self.update = TrainUpdate(
            self.optimizer,
            graph.name,
            {n: store.values[n] for n in self.trained},
            regularizers,
            bool(self.sparse),
        )
        for name, value in self.update.initial_state.items():
            store.define_system(name, value)
        self.step_name = TRAIN_STEP_PREFIX + graph.name
        store.define_system(self.step_name, np.zeros((1,), np.int64))
        self.loss_count = graph.losses[0].numel()
        self.state_names = list(dict.fromkeys([*variable_names, *self.update.state_names]))

    def __call__(self, state, inputs, train_step):
        graph = self.graph
        train_step = jnp.asarray(train_step, jnp.int64)  # a Python int: weakly typed
        key = _call_key(train_step, self.mirrored)
        feed = {id(b): x for b, x in zip(self.input_blobs, inputs)}
        real = _real_shapes(self.real_plan, self.input_blobs, inputs)
        params = {n: state[n] for n in self.trained}
        zeros = {
            id(w.blob): jnp.zeros(
                w.blob.shape,
                w.blob.dtype.np_dtype if w.blob.dtype.is_floating else _int_grad.float_dtype(),
            )
            for w in self.diff_watches
        }
        # Loss scaling seeds the loss gradient with the factor (so gradients overflow where
        # OneFlow's would); the optimizer chain divides it out of the parameter gradients.
        loss_scale = self.update.loss_scale(state)

        def objective(params, perturb):
            env = _interpret(
                graph,
                state | params,
                feed,
                perturb,
                key,
                self.mesh,
                real,
                set() if self.integer_paths else None,
            )
            total = sum(
                jnp.sum(_real_part(env[id(loss)], loss, real).astype(jnp.float32))
                for loss in graph.losses
            )
            fetched = tuple(env[id(b)] for b in self.device_fetch)
            assigned = {name: env[id(blob)] for name, blob in graph.assigns}
            seeded = total if loss_scale is None else total * loss_scale
            rows = {name: env[id(blob)] for name, blob in self.sparse.items()}
            return seeded, (fetched, assigned, rows)

        (_, (fetched, assigned, rows)), (grads, pgrads) = jax.value_and_grad(
            objective, argnums=(0, 1), has_aux=True
        )(params, zeros)
        if self.mirrored:  # moving statistics are averaged like the gradients
            assigned = jax.lax.pmean(assigned, _sharding.AXIS)
        new_params, new_opt = self.update(
            grads,
            params,
            {n: state[n] for n in self.update.state_names},
            step=train_step,
            loss_count=self._loss_count(real),
            loss_scale=loss_scale,
            rows=rows,
            device_axis=_sharding.AXIS if self.mirrored else None,
        )
        assigned = {n: v.astype(state[n].dtype) for n, v in assigned.items()}
        if loss_scale is not None:
            pgrads = {k: g / loss_scale.astype(g.dtype) for k, g in pgrads.items()}
        diffs = tuple(pgrads[id(w.blob)].astype(w.blob.dtype.np_dtype) for w in self.diff_watches)
        return state | new_params | new_opt | assigned, fetched, diffs

    def _loss_count(self, real: dict | None):
        """N of OneFlow's 1/N gradient scale: the first loss's elements (its real ones when
        dynamic)."""
        first = self.graph.losses[0]
        if real is not None and id(first) in real:
            return jnp.maximum(jnp.prod(real[id(first)]), 1).astype(jnp.float32)
        return self.loss_count


def _real_part(value, blob: Blob, real: dict | None):
    """A loss with its padding zeroed: padding must not reach the gradients."""
    if real is None or id(blob) not in real:
        return value
    return jnp.where(valid_mask(real[id(blob)], blob.shape), value, jnp.zeros((), value.dtype))
