"""The train step: forward (``_program.py``), backward and the optimizer update as one pure
function of (state, inputs, train step).

A watched gradient is the gradient with respect to a zero perturbation added to the blob, so it
costs one output buffer and no extra backward work.
"""

from __future__ import annotations

import copy
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import JobDefinitionError
from ..graph import Blob, HostDelivery, JobGraph, VariableStore, valid_mask
from ..optimizer import TrainUpdate, sparse_variables
from . import _int_grad, _sharding
from ._dynamic import RealShapePlan
from ._program import _call_key, _interpret, _real_shapes, forwarded

TRAIN_STEP_PREFIX = "System-Train-TrainStep-"


def _build_optimizer(graph: JobGraph) -> Any:
    if graph.optimizer is not None:
        return graph.optimizer
    implicit = graph.config.implicit_optimizer()
    if implicit is not None:
        return implicit
    raise JobDefinitionError(
        f"train job {graph.name!r} has no optimizer: call "
        "flow.optimizer.SGD(...).minimize(loss) in its body (or configure the legacy "
        "config.train.primary_lr + model_update_conf)"
    )


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
            {n: store.values.spec(n) for n in self.trained},
            regularizers,
            bool(self.sparse),
        )
        store.define_system_later(
            self.update.state_specs,
            lambda: self.update.initial_state({n: store.values[n] for n in self.trained}),
        )
        self.step_name = TRAIN_STEP_PREFIX + graph.name
        store.define_system(self.step_name, np.zeros((1,), np.int64))
        self.loss_count = max(graph.losses[0].numel(), 1)  # an empty loss has no gradient
        self.state_names = list(dict.fromkeys([*variable_names, *self.update.state_names]))
        self.forwarded: frozenset[int] = frozenset()  # see _program.forwarded (set when traced)
        self.watch = graph.model_watch  # flow.summary.watch_model: outputs after the diffs
        self.compute_watch = False  # True in the variant of the logging steps (watching())
        if self.watch is not None and mirrored:
            raise JobDefinitionError(
                f"train job {graph.name!r}: flow.summary.watch_model is not supported yet in "
                "the mirrored view on several devices; use the consistent view"
            )

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

        plan = self.real_plan if self.real_plan is not None and self.real_plan.tracked else None

        def objective(params, perturb):
            # data-dependent real shapes join a copy: they are values of this trace
            shapes = dict(real) if plan is not None else real
            env = _interpret(
                graph,
                state | params,
                feed,
                perturb,
                key,
                self.mesh,
                shapes,
                set() if self.integer_paths else None,
                plan,
            )
            total = sum(
                jnp.sum(_real_part(env[id(loss)], loss, shapes).astype(jnp.float32))
                for loss in graph.losses
            )
            fetched = tuple(env[id(b)] for b in self.device_fetch)
            if plan is not None:  # the fetched blobs' computed real shapes, after them
                fetched += tuple(shapes[id(b)] for b in self.device_fetch if id(b) in plan.computed)
            assigned = {name: env[id(blob)] for name, blob in graph.assigns}
            seeded = total if loss_scale is None else total * loss_scale
            rows = {name: env[id(blob)] for name, blob in self.sparse.items()}
            computed_loss = None  # the first loss's real shape, when it depends on data
            if plan is not None and id(graph.losses[0]) in plan.computed:
                computed_loss = shapes[id(graph.losses[0])]
            return seeded, (fetched, assigned, rows, computed_loss)

        (_, (fetched, assigned, rows, computed_loss)), (grads, pgrads) = jax.value_and_grad(
            objective, argnums=(0, 1), has_aux=True
        )(params, zeros)
        if computed_loss is None:
            loss_count = self._loss_count(real)
        else:
            loss_count = jnp.maximum(jnp.prod(computed_loss), 1).astype(jnp.float32)
        if self.mirrored:  # moving statistics are averaged like the gradients
            assigned = jax.lax.pmean(assigned, _sharding.AXIS)
        new_params, new_opt = self.update(
            grads,
            params,
            {n: state[n] for n in self.update.state_names},
            step=train_step,
            loss_count=loss_count,
            loss_scale=loss_scale,
            rows=rows,
            device_axis=_sharding.AXIS if self.mirrored else None,
        )
        assigned = {n: v.astype(state[n].dtype) for n, v in assigned.items()}
        self.forwarded = forwarded(fetched, state, inputs)
        if loss_scale is not None:
            pgrads = {k: g / loss_scale.astype(g.dtype) for k, g in pgrads.items()}
        diffs = tuple(pgrads[id(w.blob)].astype(w.blob.dtype.np_dtype) for w in self.diff_watches)
        if self.compute_watch:
            diffs += self._watched(params, grads, new_params, train_step, loss_count, loss_scale)
        return state | new_params | new_opt | assigned, fetched, diffs

    def _watched(self, params, grads, new_params, train_step, loss_count, loss_scale) -> tuple:
        """flow.summary.watch_model's outputs: the train step, then its statistics (this
        variant of the step runs only on the steps that log; see ``watching``)."""
        lr = self.update.optimizer.lr(train_step)
        scale = 1.0 if loss_scale is None else loss_scale
        # the gradient the optimizer receives: OneFlow's 1/N, the loss scale taken out
        grads = {n: grads[n].astype(jnp.float32) / (loss_count * scale) for n in params}
        return (train_step, *self.watch.statistics(params, grads, new_params, lr, loss_scale))

    def watching(self) -> _TrainStep:
        """This step with watch_model's outputs after the watched gradients: a second
        program that the runtime calls on the steps that log, so that the others run the
        program without them and pay nothing."""
        other = copy.copy(self)
        other.compute_watch = True
        return other

    @property
    def watch_outputs(self) -> int:
        """How many outputs watch_model adds after the watched gradients."""
        return 0 if self.watch is None else self.watch.output_count()

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
