"""``flow.model.Model``: a training loop around the model's ``training_step``."""

from __future__ import annotations

import warnings
from typing import Any

from ..runtime import clear_default_session
from ._callback import Callback
from ._configs import CheckpointConfig, TrainingConfig, ValidationConfig
from ._errors import ModelError
from ._loops import CheckpointPart, Part, TrainingPart, ValidationPart
from ._reporting import ProgressBar, TensorBoardLogger


class Model:
    """Subclass it and define ``training_step(batch, optimizer_idx)`` (returns the loss, or a
    tuple whose first item is the loss), ``configure_optimizers()`` and, for validation,
    ``validation_step(batch)``; ``forward`` is what ``model(...)`` calls. Then ``fit``.

    Steps are traced into job functions, so they use flowjob's ops, ``flow.get_variable`` and
    layers. OneFlow's ``is_deprecated_function_style`` flag is accepted; both styles run as
    job functions here (flowjob has no eager ``nn.Module`` models).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Subclasses pass their own arguments and OneFlow's style flag up; none is needed here.
        pass

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.forward() is not defined")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

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
        """Clears the default session, builds the jobs, loads the checkpoint if configured,
        then runs ``max_steps`` steps: every step trains (each optimizer in turn), then
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
                if isinstance(part, CheckpointPart):
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
        for part, cfg, what in (
            (TrainingPart(training_config, self, cbs), training_config, "training"),
            (ValidationPart(validation_config, self, cbs), validation_config, "validation"),
        ):
            if part.is_valid:
                parts.append(part)
            elif cfg is not None:
                warnings.warn(
                    f"{part.error_msg}: {name}.fit() will not do {what}", UserWarning, stacklevel=3
                )
        if not parts:
            warnings.warn(
                f"{name}.fit() does nothing: no valid training or validation configuration",
                UserWarning,
                stacklevel=3,
            )
            return parts
        if checkpoint_config is not None:
            parts.append(CheckpointPart(checkpoint_config, self, cbs))
        return parts


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
