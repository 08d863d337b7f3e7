"""The optimizer: its settings, and the Optax chain that turns gradients into updates.

``transformation()`` builds the chain of small gradient transformations (``transforms``) a
train job runs; ``init(params) -> slots`` and ``update(grads, params, slots, step)`` use the
same chain on final gradients. Slots are keyed by OneFlow's state-variable names
(``"<var>-momentum"``, ``"<var>-m"``...), so checkpoints keep OneFlow's layout.
"""

from __future__ import annotations

import collections.abc
import re
from collections.abc import Mapping, Sequence

import jax
import jax.numpy as jnp
import optax

from .._deprecation import warn_once
from . import transforms as T
from ._loss_scale import LossScalePolicy, StaticLossScalePolicy
from ._schedules import LrScheduler, _as_step
from .grad_clipping import ClipGradient

__all__ = ["Optimizer"]


def _patterns(value, who: str, name: str) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    out = list(value)
    for p in out:
        if not isinstance(p, str):
            raise TypeError(f"{who}: {name} must be regex strings, got {p!r}")
        try:
            re.compile(p)
        except re.error as exc:
            raise ValueError(f"{who}: {name} pattern {p!r} is not a valid regex: {exc}") from None
    return out


class Optimizer:
    """Base class. Subclasses define ``_rule()``, the update rule's link of the chain."""

    _name = "Optimizer"

    def __init__(
        self,
        lr_scheduler: LrScheduler,
        *,
        loss_scale_factor: float | None = None,
        grad_clipping: ClipGradient | None = None,
        variables: Sequence[str] | None = None,
        weight_decay: float | None = None,
        weight_decay_includes: Sequence[str] | str | None = None,
        weight_decay_excludes: Sequence[str] | str | None = None,
        loss_scale_policy: LossScalePolicy | None = None,
        train_step_lbn: str | None = None,
    ):
        who = self._name
        if train_step_lbn is not None:
            # OneFlow read the step from this blob; flowjob's train step keeps its own counter
            warn_once(
                f"{who}.train_step_lbn",
                f"{who}: train_step_lbn={train_step_lbn!r} is ignored: flowjob counts the train "
                "steps itself (the schedules read that count)",
            )
        if not isinstance(lr_scheduler, LrScheduler):
            raise TypeError(
                f"{who}: lr_scheduler must be a flow.optimizer scheduler such as "
                f"PiecewiseConstantScheduler([], [0.1]), got {type(lr_scheduler).__name__}"
            )
        if grad_clipping is not None and not isinstance(grad_clipping, ClipGradient):
            raise TypeError(
                f"{who}: grad_clipping must be flow.optimizer.grad_clipping.by_global_norm(...), "
                f"got {type(grad_clipping).__name__}"
            )
        if loss_scale_factor is not None and not float(loss_scale_factor) > 0:
            raise ValueError(f"{who}: loss_scale_factor must be > 0, got {loss_scale_factor}")
        if loss_scale_policy is not None:
            if not isinstance(loss_scale_policy, LossScalePolicy):
                raise TypeError(
                    f"{who}: loss_scale_policy must be flow.optimizer.loss_scale."
                    f"static_loss_scale(...) or dynamic_loss_scale(...), got "
                    f"{type(loss_scale_policy).__name__}"
                )
            if loss_scale_factor is not None:
                raise ValueError(f"{who}: set loss_scale_factor or loss_scale_policy, not both")
        if isinstance(variables, str):
            variables = [variables]
        if variables is not None:
            variables = list(variables)
            bad = [v for v in variables if not isinstance(v, str)]
            if bad:
                raise TypeError(f"{who}: variables must be variable names, got {bad!r}")
        includes = _patterns(weight_decay_includes, who, "weight_decay_includes")
        excludes = _patterns(weight_decay_excludes, who, "weight_decay_excludes")
        if includes is not None and excludes is not None:
            raise ValueError(
                f"{who}: set at most one of weight_decay_includes and weight_decay_excludes"
            )
        if weight_decay is None and (includes is not None or excludes is not None):
            raise ValueError(f"{who}: weight_decay_includes/excludes need weight_decay")
        if weight_decay is not None and not float(weight_decay) >= 0:
            raise ValueError(f"{who}: weight_decay must be >= 0, got {weight_decay}")
        self.lr_scheduler = lr_scheduler
        self.grad_clipping = grad_clipping
        # Static loss scaling (mixed precision): OneFlow seeds the loss gradient with the factor
        # and divides the parameter gradients by it again, so updates do not change with it.
        self.loss_scale_factor = None if loss_scale_factor is None else float(loss_scale_factor)
        if loss_scale_policy is None and loss_scale_factor is not None:
            loss_scale_policy = StaticLossScalePolicy(loss_scale_factor)
        self.loss_scale_policy = loss_scale_policy
        self.variables = variables
        self.weight_decay = None if weight_decay is None else float(weight_decay)
        self.weight_decay_includes = includes
        self.weight_decay_excludes = excludes

    # -- variables ---------------------------------------------------------------------------
    def variable_names(self, all_trainable: Sequence[str]) -> list[str]:
        """The variables this optimizer updates: ``variables=`` or every trainable variable."""
        all_trainable = list(all_trainable)
        if self.variables is None:
            return all_trainable
        known = set(all_trainable)
        unknown = [v for v in self.variables if v not in known]
        if unknown:
            raise ValueError(
                f"{self._name}(variables=...): {unknown} are not trainable variables of this "
                f"job; trainable variables: {sorted(known)}"
            )
        return list(dict.fromkeys(self.variables))

    def weight_decay_rate(self, name: str) -> float:
        """The weight-decay rate for variable ``name`` (0.0 when it is filtered out).

        Patterns are regular expressions matched anywhere in the name (RE2 ``PartialMatch``).
        """
        if self.weight_decay is None:
            return 0.0
        if self.weight_decay_includes is not None:
            hit = any(re.search(p, name) for p in self.weight_decay_includes)
            return self.weight_decay if hit else 0.0
        if self.weight_decay_excludes is not None:
            hit = any(re.search(p, name) for p in self.weight_decay_excludes)
            return 0.0 if hit else self.weight_decay
        return self.weight_decay

    # -- the chain -----------------------------------------------------------------------------
    def _rule(self) -> optax.GradientTransformation:
        """The update rule: final gradients -> the updates added to the variables."""
        raise NotImplementedError

    def _decay(self) -> optax.GradientTransformation:
        """``u + wd * w`` for the variables the include/exclude patterns keep: Optax's
        ``add_decayed_weights`` is OneFlow's ``model_diff + weight_decay * model`` term."""
        if self.weight_decay is None:
            return optax.identity()
        return optax.add_decayed_weights(
            self.weight_decay, mask=lambda tree: {k: self.weight_decay_rate(k) > 0 for k in tree}
        )

    def transformation(
        self,
        job_name: str | None = None,
        regularizers: Mapping[str, object] | None = None,
        sparse: bool = False,
    ) -> optax.GradientTransformationExtraArgs:
        """The whole gradient path of a train job as one Optax chain, in OneFlow's order:
        ``1/N``, device mean, loss-scale undo, then (skipped on non-finite gradients under a
        dynamic loss scale of job ``job_name``) regularizers, clipping and the update rule
        (row-masked when ``sparse``). Extra arguments: ``learning_rate``, ``step`` and
        optionally ``loss_count``, ``device_axis``, ``loss_scale``, ``rows``."""
        guarded = [T.add_regularization(regularizers)] if regularizers else []
        if self.grad_clipping is not None:
            guarded.append(self.grad_clipping.transformation())
        rule = self._rule()
        guarded.append(T.keep_untouched_rows(rule, self.slot_names) if sparse else rule)
        inner = optax.chain(*guarded)
        policy = self.loss_scale_policy
        if job_name is not None and policy is not None and policy.skips_non_finite:
            inner = T.skip_if_non_finite(inner, policy, job_name)
        return optax.chain(
            T.scale_by_loss_count(), T.mean_over_devices(), T.undo_loss_scale(), inner
        )

    # -- state -------------------------------------------------------------------------------
    def slot_names(self, name: str) -> list[str]:
        """The OneFlow names of the state variables kept for variable ``name``."""
        probe = {name: jax.ShapeDtypeStruct((1,), jnp.float32)}
        return T.state_names(jax.eval_shape(self.transformation().init, probe))

    def init(self, params: Mapping[str, object]) -> dict:
        """Slot variables for ``params`` (arrays or anything with ``.shape``/``.dtype``)."""
        return T.flatten_state(self.transformation().init(dict(params)))

    def lr(self, step):
        """The learning rate at ``step`` (float32 scalar)."""
        return self.lr_scheduler(step)

    def update(
        self,
        grads: Mapping[str, object],
        params: Mapping[str, object],
        slots: Mapping[str, object],
        step,
    ) -> tuple[dict, dict]:
        """Applies one step to final gradients; returns new ``params`` and ``slots`` (all keys
        kept). Only variables present in ``grads`` change. ``step`` is the train step before
        this update (0 for the first call)."""
        step = _as_step(step)
        missing = [k for k in grads if k not in params]
        if missing:
            raise KeyError(f"{self._name}.update: gradients for unknown parameters {missing}")
        for name in grads:
            for key in self.slot_names(name):
                if key not in slots:
                    raise KeyError(
                        f"{self._name}.update: slot {key!r} of variable {name!r} is missing; "
                        "create slots with optimizer.init(params)"
                    )
        own = {k: jnp.asarray(params[k]) for k in grads}
        tx = self.transformation()
        state = T.unflatten_state(jax.eval_shape(tx.init, own), slots)
        updates, state = tx.update(
            {k: jnp.asarray(g) for k, g in grads.items()},
            state,
            own,
            learning_rate=self.lr(step),
            step=step,
        )
        return (
            {**params, **optax.apply_updates(own, updates)},
            {**slots, **T.flatten_state(state)},
        )

    # -- job definition ------------------------------------------------------------------------
    def minimize(self, loss) -> None:
        """Registers this optimizer and ``loss`` (a blob or a list of blobs) in the train job."""
        from ..graph import current_graph  # lazy: update rules stay usable without a job

        losses = list(loss) if isinstance(loss, collections.abc.Sequence) else [loss]
        if not losses:
            raise ValueError(f"{self._name}.minimize: needs at least one loss blob")
        current_graph().set_optimizer(self, losses)

    def _fields(self) -> dict:
        return {}

    def __repr__(self) -> str:
        fields = {"lr_scheduler": self.lr_scheduler, **self._fields()}
        if self.weight_decay is not None:
            fields["weight_decay"] = self.weight_decay
            if self.weight_decay_includes is not None:
                fields["weight_decay_includes"] = self.weight_decay_includes
            if self.weight_decay_excludes is not None:
                fields["weight_decay_excludes"] = self.weight_decay_excludes
        if self.grad_clipping is not None:
            fields["grad_clipping"] = self.grad_clipping
        if self.loss_scale_factor is not None:
            fields["loss_scale_factor"] = self.loss_scale_factor
        elif self.loss_scale_policy is not None:
            fields["loss_scale_policy"] = self.loss_scale_policy
        if self.variables is not None:
            fields["variables"] = self.variables
        body = ", ".join(f"{k}={v!r}" for k, v in fields.items())
        return f"{self._name}({body})"
