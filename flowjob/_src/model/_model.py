"""``flow.model.Model``: a training loop around the model's ``training_step``, run as job
functions (``flow.optimizer`` optimizers) or eagerly (``flow.optim`` optimizers)."""

from __future__ import annotations

import warnings
from typing import Any

from ..imperative import Module
from ..optim import Optimizer as EagerOptimizer
from ..runtime import clear_default_session, eager_execution_enabled
from ._callback import Callback
from ._configs import CheckpointConfig, TrainingConfig, ValidationConfig
from ._eager_loops import EagerCheckpointPart, EagerTrainingPart, EagerValidationPart
from ._errors import ModelError
from ._loops import CheckpointPart, Part, TrainingPart, ValidationPart, configured_optimizers
from ._reporting import ProgressBar, TensorBoardLogger


class Model(Module):
    """Subclass it and define ``training_step(batch, optimizer_idx)`` (returns the loss, or a
    tuple whose first item is the loss), ``configure_optimizers()`` and, for validation,
    ``validation_step(batch)``; ``forward`` is what ``model(...)`` calls. Then ``fit``.

    A ``Model`` is an ``nn.Module`` (OneFlow v0.4's), so ``fit`` runs in one of two modes:

    * **job functions**: ``configure_optimizers`` returns ``flow.optimizer`` optimizers; the
      steps are traced into jobs, so they use flowjob's ops, ``flow.get_variable`` and layers.
    * **eager**: ``configure_optimizers`` returns ``flow.optim`` optimizers (of the model's
      ``parameters()``, those of the sub-modules assigned in ``__init__``); every step calls
      ``training_step`` on tensors, ``backward()``, ``step()`` and ``zero_grad()``, and
      checkpoints are ``flow.save(model.state_dict(), ...)``. Call ``super().__init__()``
      first in ``__init__``. Without training, validation runs eagerly when eager execution
      is on (``flow.enable_eager_execution()``).

    OneFlow's ``is_deprecated_function_style=True`` picks the job functions when no optimizer
    says which mode (validation alone).

    Examples:
        >>> import numpy as np, flowjob.experimental as flow
        >>> class Scale(flow.Model):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.lin = flow.nn.Linear(1, 1, bias=False)
        ...     def training_step(self, batch, **kwargs):
        ...         x, y = batch
        ...         return flow.sum((self.lin(x) - y) ** 2)
        ...     def configure_optimizers(self):
        ...         return flow.optim.SGD(self.parameters(), lr=0.05)
        >>> class Data(flow.model.DataModule):
        ...     def forward(self, step_idx=0, optimizer_idx=0):
        ...         return flow.Tensor([[1.0], [2.0]]), flow.Tensor([[3.0], [6.0]])
        >>> train = flow.model.TrainingConfig()
        >>> train.config_data(Data())
        >>> model = Scale()
        >>> model.fit(training_config=train, max_steps=50)
        >>> round(float(model.lin.weight.numpy().item()), 3)
        3.0
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Subclasses pass their own arguments up; only OneFlow's style flag is read here.
        super().__init__()
        self._is_deprecated_function_style = bool(kwargs.get("is_deprecated_function_style", False))

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.forward() is not defined")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:  # nn.Module's call (with its hooks) takes positional arguments only
            return self.forward(*args, **kwargs)
        return super().__call__(*args)

    def training_step(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.training_step() is not defined")

    def validation_step(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.validation_step() is not defined")

    def configure_optimizers(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.configure_optimizers() is not defined")

    def method_overrided(self, method_name: str) -> bool:
        """Whether the subclass defines ``method_name`` (OneFlow's spelling)."""
        return getattr(type(self), method_name) is not getattr(Model, method_name)

    def fit(
        self,
        training_config: TrainingConfig | None = None,
        validation_config: ValidationConfig | None = None,
        checkpoint_config: CheckpointConfig | None = None,
        callbacks: Callback | list[Callback] | None = None,
        max_steps: int = 100,
        *,
        progress_bar: bool = False,
        summary_logdir: str | None = None,
    ) -> None:
        """Clears the default session, builds the jobs (job mode), loads the checkpoint if
        configured, then runs ``max_steps`` steps: every step trains (each optimizer in turn), then
        validates and saves when their intervals say so, calling the callbacks.

        A missing or invalid config skips its part with a warning (OneFlow's behaviour).
        flowjob additions: ``progress_bar=True`` shows a one-line progress bar on stderr;
        ``summary_logdir`` logs the losses and validation outputs for TensorBoard.
        """
        if not isinstance(max_steps, int) or isinstance(max_steps, bool) or max_steps < 0:
            raise ValueError(
                f"{type(self).__name__}.fit: max_steps must be an int >= 0, got {max_steps!r}"
            )
        clear_default_session()
        cbs = _callback_list(callbacks)
        if progress_bar:
            cbs.append(ProgressBar())
        if summary_logdir is not None:
            cbs.append(TensorBoardLogger(summary_logdir))
        parts = self._parts(training_config, validation_config, checkpoint_config, cbs)
        if not parts:
            return
        for cb in cbs:
            cb.on_fit_start(max_steps)
        try:
            for part in parts:
                if isinstance(part, (CheckpointPart, EagerCheckpointPart)):
                    part.load()
            for step_idx in range(max_steps):
                for part in parts:
                    try:
                        part.step(step_idx)
                    except Exception as exc:
                        exc.add_note(
                            f"{type(self).__name__}.fit: step_idx {step_idx} {part.name} failed"
                        )
                        raise
        finally:
            for cb in cbs:
                cb.on_fit_end()

    def _parts(
        self,
        training_config: TrainingConfig | None,
        validation_config: ValidationConfig | None,
        checkpoint_config: CheckpointConfig | None,
        cbs: list[Callback],
    ) -> list[Part]:
        parts: list[Part] = []
        name = type(self).__name__
        training = self._training_part(training_config, cbs)
        if training.is_valid:
            eager = isinstance(training, EagerTrainingPart)
        else:  # no optimizer says which mode: OneFlow's rule, the execution mode and the flag
            eager = eager_execution_enabled() and not self._is_deprecated_function_style
        validation = (EagerValidationPart if eager else ValidationPart)(
            validation_config, self, cbs
        )
        for part, cfg in ((training, training_config), (validation, validation_config)):
            if part.is_valid:
                parts.append(part)
            elif cfg is not None:
                warnings.warn(
                    f"{part.error_msg}: {name}.fit() will not do {part.name}",
                    UserWarning,
                    stacklevel=3,
                )
        if not parts:
            warnings.warn(
                f"{name}.fit() does nothing: no valid training or validation configuration",
                UserWarning,
                stacklevel=3,
            )
            return parts
        if checkpoint_config is not None:
            checkpointing = EagerCheckpointPart if eager else CheckpointPart
            parts.append(checkpointing(checkpoint_config, self, cbs))
        return parts

    def _training_part(self, cfg: TrainingConfig | None, cbs: list[Callback]) -> Part:
        """The job or eager training part, as ``configure_optimizers`` says; an invalid
        ``Part`` naming its problems when training cannot run."""
        checked = Part(cfg, self, cbs, name="training")
        checked.require_override("training_step")
        checked.require_override("configure_optimizers")
        if not checked.is_valid:
            return checked
        opts = configured_optimizers(self)
        if isinstance(opts[0], EagerOptimizer):
            return EagerTrainingPart(cfg, self, cbs, opts)
        return TrainingPart(cfg, self, cbs, opts)


def _callback_list(callbacks: Callback | list[Callback] | None) -> list[Callback]:
    if callbacks is None:
        return []
    cbs = [callbacks] if isinstance(callbacks, Callback) else callbacks
    if not isinstance(cbs, (list, tuple)) or not all(isinstance(c, Callback) for c in cbs):
        raise ModelError(
            "Model.fit: callbacks must be a flow.model.Callback or a list of them, "
            f"got {callbacks!r}"
        )
    return list(cbs)
