"""``flow.optim.lr_scheduler``: OneFlow v0.4's learning-rate schedulers for the eager
optimizers. A scheduler rewrites each parameter group's ``"lr"`` option at every ``step()``
(the optimizer reads it at its next step, as an input of its compiled update, so nothing
recompiles). Creating one takes the first step (step 0) at once, as in OneFlow v0.4.
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable, Sequence

from ._optimizer import Optimizer

__all__ = ["LrScheduler", "StepLR", "LambdaLR", "CosineScheduler"]


class LrScheduler:
    """Base of the schedulers: ``step()`` advances ``last_step`` and sets every group's
    ``lr`` to ``get_lr()``'s value for it; ``get_last_lr()`` returns those values.

    With ``last_step=-1`` each group's current ``lr`` is saved as its ``"initial_lr"`` (the
    ``base_lrs``); resuming (``last_step >= 0``) needs ``"initial_lr"`` in every group.

    Examples:
        >>> import flowjob.experimental as flow
        >>> class Halving(flow.optim.lr_scheduler.LrScheduler):
        ...     def get_lr(self):
        ...         return [base * 0.5 ** self.last_step for base in self.base_lrs]
        >>> opt = flow.optim.SGD([flow.nn.Parameter(flow.Tensor([1.0]))], lr=1.0)
        >>> scheduler = Halving(opt)
        >>> scheduler.step(); scheduler.step()
        >>> scheduler.get_last_lr(), opt.param_groups[0]["lr"]
        ([0.25], 0.25)
    """

    def __init__(self, optimizer: Optimizer, last_step: int = -1, verbose: bool = False):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(
                f"{type(self).__name__}: optimizer must be a flow.optim optimizer, got "
                f"{type(optimizer).__name__}"
            )
        self._optimizer = optimizer
        groups = optimizer.param_groups
        if last_step == -1:
            for group in groups:
                group.options["initial_lr"] = group.options["lr"]
        else:
            for i, group in enumerate(groups):
                if "initial_lr" not in group.options:
                    raise KeyError(
                        f"{type(self).__name__}: param_groups[{i}] has no 'initial_lr' to "
                        f"resume from (last_step={last_step})"
                    )
        self.base_lrs = [group.options["initial_lr"] for group in groups]
        self.last_lr: list[float] = []
        self.last_step = last_step
        self.verbose = verbose
        self.step()

    @property
    def optimizer(self) -> Optimizer:
        return self._optimizer

    def state_dict(self) -> dict:
        """The scheduler's attributes except the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "_optimizer"}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restores attributes saved by ``state_dict()``."""
        self.__dict__.update(state_dict)

    def get_lr(self) -> list[float]:
        """The learning rate of each group at ``last_step`` (subclasses compute it)."""
        raise NotImplementedError

    def get_last_lr(self) -> list[float]:
        """The learning rates the last ``step()`` set, one per group."""
        return self.last_lr

    def print_lr(self, group_idx: int, lr: float) -> None:
        print(f"Adjusting learning rate of param_groups[{group_idx}] to {lr}")

    def step(self) -> None:
        """Advances one step and writes the new rates into the groups."""
        self.last_step += 1
        self.last_lr = self.get_lr()
        for i, group in enumerate(self._optimizer.param_groups):
            group.options["lr"] = self.last_lr[i]
            if self.verbose:
                self.print_lr(i, self.last_lr[i])


class StepLR(LrScheduler):
    """Multiplies each group's current ``lr`` by ``gamma`` every ``step_size`` steps, so
    ``lr = base_lr * gamma ** (step // step_size)`` when nothing else changes it.

    Args:
        optimizer: the optimizer whose groups it drives.
        step_size: the period of the decay, in steps (> 0).
        gamma: the factor (> 0).
        last_step: the index of the last step taken (-1: starting).
        verbose: print each new rate.

    Raises:
        ValueError: ``step_size`` or ``gamma`` not positive.

    Examples:
        >>> import flowjob.experimental as flow
        >>> opt = flow.optim.SGD([flow.nn.Parameter(flow.Tensor([1.0]))], lr=1.0)
        >>> scheduler = flow.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        >>> rates = []
        >>> for _ in range(5):
        ...     scheduler.step()
        ...     rates.append(scheduler.get_last_lr()[0])
        >>> rates
        [1.0, 0.5, 0.5, 0.25, 0.25]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        step_size: int,
        gamma: float = 0.1,
        last_step: int = -1,
        verbose: bool = False,
    ):
        if not step_size > 0:
            raise ValueError(f"StepLR: step_size must be > 0, got {step_size}")
        if not gamma > 0.0:
            raise ValueError(f"StepLR: gamma must be > 0, got {gamma}")
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_step, verbose)

    def get_lr(self) -> list[float]:
        # chainable: scales the rate the groups hold now, not the base rate
        decays = self.last_step != 0 and self.last_step % self.step_size == 0
        factor = self.gamma if decays else 1.0
        return [group.options["lr"] * factor for group in self._optimizer.param_groups]


class LambdaLR(LrScheduler):
    """Sets each group's ``lr`` to ``base_lr * lr_lambda(step)``.

    Args:
        optimizer: the optimizer whose groups it drives.
        lr_lambda: a function of the step giving the factor, or a list of them, one per group.
        last_step: the index of the last step taken (-1: starting).
        verbose: print each new rate.

    Raises:
        ValueError: a list of ``lr_lambda`` whose length is not the number of groups.

    Examples:
        >>> import flowjob.experimental as flow
        >>> opt = flow.optim.SGD([flow.nn.Parameter(flow.Tensor([1.0]))], lr=2.0)
        >>> scheduler = flow.optim.lr_scheduler.LambdaLR(opt, lambda step: 1 / (step + 1))
        >>> scheduler.step(); scheduler.step()
        >>> scheduler.get_last_lr()
        [0.6666666666666666]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | Sequence[Callable[[int], float]],
        last_step: int = -1,
        verbose: bool = False,
    ):
        count = len(optimizer.param_groups) if isinstance(optimizer, Optimizer) else 0
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != count:
                raise ValueError(
                    f"LambdaLR: expected {count} lr_lambdas (one per group), got {len(lr_lambda)}"
                )
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * count
        super().__init__(optimizer, last_step, verbose)

    def state_dict(self) -> dict:
        """As the base's; a lambda is kept only as a callable object's ``__dict__``."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("_optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [
            None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
            for fn in self.lr_lambdas
        ]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        state = dict(state_dict)
        saved = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for fn, attributes in zip(self.lr_lambdas, saved):
            if attributes is not None:
                fn.__dict__.update(attributes)

    def get_lr(self) -> list[float]:
        return [base * fn(self.last_step) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class CosineScheduler(LrScheduler):
    """Cosine decay over ``steps`` steps to ``alpha * base_lr``, then constant:
    ``lr = base_lr * ((1 - alpha) * 0.5 * (1 + cos(pi * step / steps)) + alpha)``.

    Args:
        optimizer: the optimizer whose groups it drives.
        steps: the decay steps (> 0).
        alpha: the final rate as a fraction of the base rate.
        last_step: the index of the last step taken (-1: starting).
        verbose: print each new rate.

    Raises:
        ValueError: ``steps`` not positive.

    Examples:
        >>> import flowjob.experimental as flow
        >>> opt = flow.optim.SGD([flow.nn.Parameter(flow.Tensor([1.0]))], lr=1.0)
        >>> scheduler = flow.optim.lr_scheduler.CosineScheduler(opt, steps=4, alpha=0.5)
        >>> for _ in range(2):
        ...     scheduler.step()
        >>> scheduler.get_last_lr()  # half way: 0.5 * 0.5 + 0.5
        [0.75]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        steps: int,
        alpha: float = 0.0,
        last_step: int = -1,
        verbose: bool = False,
    ):
        if not steps > 0:
            raise ValueError(f"CosineScheduler: steps must be > 0, got {steps}")
        self.steps = steps
        self.alpha = alpha
        super().__init__(optimizer, last_step, verbose)

    def get_lr(self) -> list[float]:
        if self.last_step >= self.steps:
            return [base * self.alpha for base in self.base_lrs]
        cos_decay = 0.5 * (1 + math.cos(math.pi * self.last_step / self.steps))
        factor = (1 - self.alpha) * cos_decay + self.alpha
        return [base * factor for base in self.base_lrs]
