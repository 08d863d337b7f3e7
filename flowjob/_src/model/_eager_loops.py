"""The parts of one eager ``fit`` step (OneFlow v0.4's "OOP style"): the model is an
``nn.Module`` trained by ``flow.optim`` optimizers, op by op, with no job function.

Per step and optimizer, training calls the data module, ``training_step``, ``backward`` on the
loss, ``optimizer.step()`` and ``zero_grad()``, then the callbacks; validation runs
``validation_step`` without recording gradients; checkpoints are the model's ``state_dict``
written with ``flow.save`` and read back with ``load_state_dict(flow.load(...))``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import autograd, checkpoint
from ..imperative import Tensor
from ..optim import Optimizer
from ._callback import Callback
from ._configs import CheckpointConfig, TrainingConfig, ValidationConfig
from ._errors import ModelError
from ._loops import Part, first_output

if TYPE_CHECKING:
    from ._model import Model


class EagerTrainingPart(Part):
    """Every step, each optimizer in turn: batch, loss, ``backward``, ``step``, ``zero_grad``.

    The batch is whatever the data module returns for ``(step_idx, optimizer_idx)`` (tensors
    from a ``DataModule``, the NumPy arrays of a ``NumpyDataModule``), passed on unchanged.
    """

    name = "training"

    def __init__(
        self,
        cfg: TrainingConfig,
        model: Model,
        callbacks: list[Callback],
        optimizers: list[Optimizer],
    ):
        super().__init__(cfg, model, callbacks)
        self.optimizers = optimizers

    def step(self, step_idx: int) -> None:
        for i, opt in enumerate(self.optimizers):
            batch = self.cfg.data(step_idx, i)
            outputs = self.model.training_step(batch=batch, optimizer_idx=i)
            loss = first_output(outputs)
            if not isinstance(loss, Tensor):
                raise ModelError(
                    f"{type(self.model).__name__}.training_step(optimizer_idx={i}) must return "
                    "the loss as a flow.Tensor (or a tuple whose first item is the loss), got "
                    f"{type(loss).__name__}"
                )
            loss.backward()
            opt.step()
            opt.zero_grad()
            self._notify(
                "on_training_step_end", outputs=outputs, step_idx=step_idx, optimizer_idx=i
            )


class EagerValidationPart(Part):
    """After every ``step_interval``-th training step: ``validation_step`` on the batch of
    ``data(step_idx, 0)``, with no gradients recorded and the model in evaluation mode
    (``eval()``; OneFlow v0.4 called ``train()`` here, leaving dropout and batch
    normalization in their training behaviour), its mode restored afterwards."""

    name = "validation"

    def __init__(self, cfg: ValidationConfig | None, model: Model, callbacks: list[Callback]):
        super().__init__(cfg, model, callbacks)
        self.require_override("validation_step")

    def step(self, step_idx: int) -> None:
        if (step_idx + 1) % self.cfg.step_interval:
            return
        model = self.model
        was_training = model.training
        with autograd.no_grad():
            batch = self.cfg.data(step_idx, 0)
            model.eval()
            try:
                outputs = model.validation_step(batch)
            finally:
                model.train(was_training)
        self._notify("on_validation_step_end", outputs=outputs, step_idx=step_idx)


class EagerCheckpointPart(Part):
    """Loads ``load_dirpath`` into the model before the first step; after every
    ``save_step_interval``-th step saves its ``state_dict`` to ``<dirpath>-<step_idx>``."""

    name = "checkpointing"

    def __init__(self, cfg: CheckpointConfig, model: Model, callbacks: list[Callback]):
        super().__init__(cfg, model, callbacks)

    def load(self) -> None:
        if self.cfg.need_load:
            self.model.load_state_dict(checkpoint.get(self.cfg.load_dirpath))

    def step(self, step_idx: int) -> None:
        if self.cfg.need_save and (step_idx + 1) % self.cfg.save_step_interval == 0:
            checkpoint.save(f"{self.cfg.save_dirpath}-{step_idx}", self.model.state_dict())
