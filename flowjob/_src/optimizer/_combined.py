"""``flow.optimizer.CombinedOptimizer``: several optimizers in one train job, each updating
its own variables (``variables=``), as OneFlow's multi-optimizer training."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import optax

from ._base import Optimizer
from ._loss_scale import LossScalePolicy, StaticLossScalePolicy

__all__ = ["CombinedOptimizer"]


class CombinedOptimizer(Optimizer):
    """Runs ``optimizers`` side by side. Their ``variables=`` lists must not overlap; one of
    them may leave ``variables`` unset and updates the remaining trainable variables. Loss
    scaling is set here, for all of them (OneFlow's rule)."""

    _name = "CombinedOptimizer"

    def __init__(
        self,
        optimizers: Sequence[Optimizer],
        loss_scale_factor: float | None = None,
        train_step_lbn: str | None = None,
        loss_scale_policy: LossScalePolicy | None = None,
    ):
        who = self._name
        optimizers = list(optimizers)
        if not optimizers or not all(isinstance(o, Optimizer) for o in optimizers):
            raise TypeError(
                f"{who}: optimizers must be a non-empty list of flow.optimizer "
                f"optimizers, got {optimizers!r}"
            )
        if any(isinstance(o, CombinedOptimizer) for o in optimizers):
            raise TypeError(f"{who}: cannot contain another CombinedOptimizer")
        if any(o.loss_scale_policy is not None for o in optimizers):
            raise ValueError(
                f"{who}: set loss scaling on the CombinedOptimizer, not on the optimizers inside it"
            )
        if sum(o.variables is None for o in optimizers) > 1:
            raise ValueError(
                f"{who}: at most one optimizer may leave variables= unset (it "
                "takes the variables the others do not name)"
            )
        if loss_scale_factor is not None and loss_scale_policy is not None:
            raise ValueError(f"{who}: set loss_scale_factor or loss_scale_policy, not both")
        if loss_scale_policy is None and loss_scale_factor is not None:
            loss_scale_policy = StaticLossScalePolicy(float(loss_scale_factor))
        self.optimizers = optimizers
        self.loss_scale_policy = loss_scale_policy
        self.loss_scale_factor = None if loss_scale_factor is None else float(loss_scale_factor)
        self.grad_clipping = None  # each optimizer clips its own gradients
        self.lr_scheduler = optimizers[0].lr_scheduler
        self.variables = None
        self.weight_decay = None
        self.weight_decay_includes = self.weight_decay_excludes = None
        self._owner: dict[str, Optimizer] = {}

    def variable_names(self, all_trainable: Sequence[str]) -> list[str]:
        owner: dict[str, Optimizer] = {}
        for optimizer in self.optimizers:
            if optimizer.variables is None:
                continue
            for name in optimizer.variable_names(all_trainable):
                if name in owner:
                    raise ValueError(
                        f"{self._name}: variable {name!r} is named by two "
                        "optimizers; their variables must not overlap"
                    )
                owner[name] = optimizer
        rest = [o for o in self.optimizers if o.variables is None]
        if rest:
            owner.update({n: rest[0] for n in all_trainable if n not in owner})
        self._owner = owner
        return list(owner)

    def _owner_of(self, name: str) -> Optimizer:
        if name not in self._owner:  # used without a job: the names seen so far are all
            self.variable_names([*self._owner, name])
        return self._owner[name]

    def _owned(self, names) -> Mapping[Optimizer, list[str]]:
        if any(n not in self._owner for n in names):
            self.variable_names([*self._owner, *names])
        groups: dict[Optimizer, list[str]] = {o: [] for o in self.optimizers}
        for name in names:
            groups[self._owner[name]].append(name)
        return groups

    def slot_names(self, name: str) -> list[str]:
        return self._owner_of(name).slot_names(name)

    def _rule(self) -> optax.GradientTransformationExtraArgs:
        """Each optimizer's clipping and update rule on the variables it owns, at its own
        learning rate; the shared links (1/N, loss scale, regularizers) run before."""

        def chain_of(optimizer: Optimizer):
            links = [optimizer.grad_clipping.transformation()] if optimizer.grad_clipping else []
            return optax.with_extra_args_support(optax.chain(*links, optimizer._rule()))

        def init(params):
            return tuple(
                chain_of(o).init({n: params[n] for n in names})
                for o, names in self._owned(list(params)).items()
            )

        def update(updates, state, params=None, *, step, **extra):
            extra.pop("learning_rate", None)
            out, new_state = {}, []
            for (o, names), own in zip(self._owned(list(updates)).items(), state):
                part, own = chain_of(o).update(
                    {n: updates[n] for n in names},
                    own,
                    {n: params[n] for n in names},
                    learning_rate=o.lr(step),
                    step=step,
                    **extra,
                )
                out.update(part)
                new_state.append(own)
            return out, tuple(new_state)

        return optax.GradientTransformationExtraArgs(init, update)

    def _fields(self) -> dict:
        return {"optimizers": self.optimizers}
