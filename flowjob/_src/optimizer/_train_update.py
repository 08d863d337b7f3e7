"""One train job's optimizer step: the chain, its named state, one call per step."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jax
import optax

from . import transforms as T
from ._base import Optimizer
from ._schedules import _as_step

__all__ = ["TrainUpdate"]


class TrainUpdate:
    """``optimizer``'s whole gradient path for job ``job_name``, as the runtime runs it.

    ``state`` is ``{OneFlow variable name: array}``: the update rule's slots and, under a
    dynamic loss scale, the job's loss-scale variables; :attr:`state_specs` holds their
    shapes and dtypes, :meth:`initial_state` their first values. ``params`` may be arrays or
    ``jax.ShapeDtypeStruct``. ``regularizers`` maps variables to their ``flow.regularizers``
    object; ``sparse`` says some variables are updated row-wise (``rows=`` at each call).
    """

    def __init__(
        self,
        optimizer: Optimizer,
        job_name: str,
        params: Mapping[str, Any],
        regularizers: Mapping[str, Any] | None = None,
        sparse: bool = False,
    ):
        self.optimizer = optimizer
        self.job_name = job_name
        self.chain = optimizer.transformation(job_name, regularizers, sparse)
        # One program for every slot (op by op, each zeros_like compiles for its shape),
        # traced once: its output shapes are the template, and it is compiled and run only
        # when there are slots (plain SGD has none: nothing to compile).
        self._init = jax.jit(self.chain.init).trace(dict(params))
        self._template = self._init.out_info
        self.state_specs = T.flatten_state(self._template)

    def initial_state(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The state's first values for the parameters' values ``params``."""
        if not self.state_specs:
            return {}
        return T.flatten_state(self._init.lower().compile()(dict(params)))

    @property
    def state_names(self) -> list[str]:
        return list(self.state_specs)

    @property
    def loss_scale_used(self) -> bool:
        """Whether the job's gradients are loss-scaled."""
        return self.optimizer.loss_scale_policy is not None

    def loss_scale(self, state: Mapping[str, Any]):
        """This step's loss scale (a float32 scalar), or None without loss scaling."""
        policy = self.optimizer.loss_scale_policy
        return None if policy is None else policy.scale(self.job_name, state)

    def __call__(
        self,
        grads: Mapping[str, Any],
        params: Mapping[str, Any],
        state: Mapping[str, Any],
        *,
        step,
        loss_count=1,
        loss_scale=None,
        device_axis: str | None = None,
        rows: Mapping[str, Any] | None = None,
    ) -> tuple[dict, dict]:
        """New ``params`` and ``state`` from the raw gradients of the summed loss.

        ``step``: the train step before this update; ``loss_count``: the elements N of the
        first loss; ``loss_scale``: the factor the loss gradient was seeded with;
        ``device_axis``: the mesh axis to average gradients over (mirrored view); ``rows``:
        ``{variable: gathered indices}`` of the row-wise variables."""
        step = _as_step(step)
        updates, new = self.chain.update(
            dict(grads),
            T.unflatten_state(self._template, state),
            dict(params),
            learning_rate=self.optimizer.lr(step),
            step=step,
            loss_count=loss_count,
            loss_scale=loss_scale,
            device_axis=device_axis,
            rows=rows,
        )
        return optax.apply_updates(dict(params), updates), T.flatten_state(new)
