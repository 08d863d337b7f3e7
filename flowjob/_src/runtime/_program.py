"""The forward program: ``_interpret`` evaluates a job graph's device ops in order (the
predict step, and the inside of the train step in ``_train_step.py``), with the random keys of
each call and op.

A predict job that assigns variables (``flow.assign``, as OneFlow allowed) returns its new
state as a train step does, ``(state, outputs)``, and its state is donated like a train
step's; a predict job that writes nothing returns only its outputs and donates nothing."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from ..graph import Blob, JobGraph, OpKind
from . import _channels_last, _eager_kernels, _int_grad, _sharding
from ._dynamic import RealShapePlan, real_of

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
    plan: RealShapePlan | None = None,
) -> dict[int, Any]:
    """``real``: the real shape arrays of the dynamic blobs masked lowerings read; ``plan``
    adds those of data-dependent blobs to it as they are computed.
    ``promoted``: integer blobs carried as floats for their gradient (runtime/_int_grad.py)."""
    env: dict[int, Any] = {}
    layout = None  # the program's NHWC values, where it runs channels-last
    plain = promoted is None and plan is None and not real and not _eager_kernels.active()
    if plain and _channels_last.wanted(graph, mesh):
        layout = _channels_last.ChannelsLast()
    for i, op in enumerate(graph.ops):
        if layout is None or op.kind is not OpKind.DEVICE or not layout.run(op, env):
            run_op(i, op, env, state, inputs, key, mesh, real, promoted)
        if plan is not None and id(op) in plan.tracked:  # a data-dependent size
            plan.track(op, [env[id(b)] for b in op.inputs], real)
        for blob in op.outputs:
            if id(blob) in perturb and id(blob) in env:
                if layout is not None:
                    layout.forget(blob)
                if promoted is None:
                    env[id(blob)] = env[id(blob)] + perturb[id(blob)]
                else:
                    env[id(blob)] = _int_grad.perturb(
                        env[id(blob)], blob, perturb[id(blob)], promoted
                    )
    return env


def run_op(
    i: int,
    op: Any,
    env: dict[int, Any],
    state: dict[str, Any],
    inputs: dict[int, Any],
    key: Any,
    mesh: Any = None,
    real: dict[int, Any] | None = None,
    promoted: set[int] | None = None,
) -> None:
    """Evaluates op ``i`` of a graph into ``env`` (id(blob) -> value); host ops do nothing.
    The one evaluation of an op: the programs' (``_interpret``) and eager mode's."""
    if op.kind is OpKind.INPUT or op.kind is OpKind.FEED:  # an argument, or pipeline outputs
        for blob in op.outputs:
            if id(blob) in inputs:
                env[id(blob)] = inputs[id(blob)]
    elif op.kind is OpKind.VARIABLE:
        env[id(op.outputs[0])] = state[op.name]
    elif op.kind is OpKind.DEVICE:
        args = [env[id(b)] for b in op.inputs]
        kwargs = dict(op.attrs)
        rng = _op_key(key, i, op.attrs.get("seed")) if op.rng else None
        if op.real_shape is not None and op.real_shape.masked is not None:
            kwargs["real"] = tuple(real_of(real, b) for b in op.inputs)
            out = op.real_shape.masked(*args, **_keyed(kwargs, rng))
        elif promoted is not None and _int_grad.on_integer_path(op, promoted):
            out = _int_grad.run_op(op, args, _keyed(kwargs, rng), promoted)
        elif _eager_kernels.active():
            # the random key apart from the attributes (an op may have an attribute "key")
            out = _eager_kernels.run(op.lowering, args, kwargs, rng)
        else:
            out = op.lowering(*args, **_keyed(kwargs, rng))
        if op.op_type in _SBP_OPS and op.attrs.get("distribute") is not None:
            out = _sharding.constrain(out, op.attrs["distribute"], mesh)
        elif op.op_type == "hierarchical_parallel_cast":
            out = _sharding.constrain_nd(out, op.attrs["nd_sbp"], op.attrs["hierarchy"], mesh)
        for blob, value in zip(op.outputs, out if isinstance(out, tuple) else (out,)):
            env[id(blob)] = value


def _keyed(kwargs: dict[str, Any], rng: Any) -> dict[str, Any]:
    """A random op's keyword arguments: its attributes and its ``key``."""
    if rng is not None:
        kwargs["key"] = rng
    return kwargs


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
    if plan is None or not (plan.size or plan.tracked):
        return None
    return plan.unpack(inputs[len(input_blobs)]) if plan.size else {}


def forwarded(fetched: tuple, *sources: Any) -> frozenset[int]:
    """Positions of the fetched values that are one of the step's own inputs (seen while
    tracing: a variable or an argument returned unchanged). JAX may hand such an output back
    as the input array itself, which the host must never write into."""
    own = {id(v) for source in sources for v in jax.tree_util.tree_leaves(source)}
    return frozenset(i for i, v in enumerate(fetched) if id(v) in own)


class _PredictStep:
    """The predict program: ``(state, inputs, counter) -> outputs``, or ``(state, outputs)``
    when the job assigns variables. ``forwarded``: see ``forwarded()`` (set when traced)."""

    def __init__(
        self,
        graph: JobGraph,
        input_blobs: list[Blob],
        device_fetch: list[Blob],
        mesh,
        mirrored: bool = False,
        real_plan: RealShapePlan | None = None,
    ):
        self.graph = graph
        self.input_blobs = input_blobs
        self.device_fetch = device_fetch
        self.mesh = None if mirrored else mesh
        self.mirrored = mirrored
        self.real_plan = real_plan
        self.forwarded: frozenset[int] = frozenset()

    def __call__(self, state, inputs, counter):
        graph, input_blobs = self.graph, self.input_blobs
        real = _real_shapes(self.real_plan, input_blobs, inputs)
        env = _interpret(
            graph,
            state,
            {id(b): x for b, x in zip(input_blobs, inputs)},
            {},
            _call_key(counter, self.mirrored),
            self.mesh,
            real,
            plan=self.real_plan,
        )
        fetched = tuple(env[id(b)] for b in self.device_fetch)
        if self.real_plan is not None and self.real_plan.tracked:  # data-dependent sizes
            fetched += tuple(
                real[id(b)] for b in self.device_fetch if id(b) in self.real_plan.computed
            )
        self.forwarded = forwarded(fetched, state, inputs)
        if not graph.assigns:
            return fetched
        assigned = {name: env[id(blob)] for name, blob in graph.assigns}
        if self.mirrored:  # as the train step: every device keeps the same variables
            assigned = jax.lax.pmean(assigned, _sharding.AXIS)
        return state | {n: v.astype(state[n].dtype) for n, v in assigned.items()}, fetched
