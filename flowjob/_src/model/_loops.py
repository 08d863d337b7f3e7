"""The parts of one ``fit`` step: training jobs, the validation job, checkpointing.

Training and validation run as ``flow.global_function`` jobs whose bodies call the model's
``training_step``/``validation_step`` (traced once, at the first call). A plain
``DataModule`` is called inside the body; a ``NumpyDataModule`` is called on the host each
step and its arrays fed to placeholders shaped like its step-0 batch.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .. import checkpoint
from ..optim import Optimizer as EagerOptimizer
from ..optimizer import Optimizer
from ..runtime import JobFunction, global_function
from ._callback import Callback
from ._configs import CheckpointConfig, TrainingConfig, ValidationConfig
from ._data import NumpyDataModule
from ._errors import ModelError

if TYPE_CHECKING:
    from ._model import Model


class Part:
    """One part of a step; ``is_valid`` False (with ``error_msg``) when ``fit`` must skip it."""

    name = ""

    def __init__(self, cfg: Any, model: Model, callbacks: list[Callback], name: str = ""):
        self.name = name or self.name
        self.cfg = cfg
        self.model = model
        self.callbacks = callbacks
        problems = []
        if cfg is None:
            problems.append("config is None")
        elif not cfg.check_valid():
            problems.append(cfg.error_msg.rstrip(";"))
        self.problems = problems

    @property
    def is_valid(self) -> bool:
        return not self.problems

    @property
    def error_msg(self) -> str:
        return f"{type(self.model).__name__} {self.name}: " + "; ".join(self.problems)

    def step(self, step_idx: int) -> None:
        raise NotImplementedError

    def _notify(self, hook: str, **kwargs: Any) -> None:
        for cb in self.callbacks:
            getattr(cb, hook)(**kwargs)

    def require_override(self, method: str) -> None:
        if not self.model.method_overrided(method):
            self.problems.append(f"model.{method}() is not defined")


def first_output(outputs: Any) -> Any:
    """The loss: a step's only output, or the first of a tuple."""
    return outputs[0] if isinstance(outputs, tuple) and outputs else outputs


def _job(
    body: Callable[..., Any],
    name: str,
    job_type: str,
    cfg: Any,
    data: Any,
    batch: Any,
    optimizer_idx: int,
) -> JobFunction:
    """``body`` as a job named ``name``; with NumPy data its parameters are placeholders
    shaped like ``batch``, named ``<DataModule>_opt_<i>_para_<j>`` as in OneFlow."""
    params = []
    if batch is not None:
        placeholders = data.infer_oneflow_data_placeholder(batch, optimizer_idx)
        prefix = f"{type(data).__name__}_opt_{optimizer_idx}_para_"
        params = [
            inspect.Parameter(
                f"{prefix}{i}", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=ph
            )
            for i, ph in enumerate(placeholders)
        ]
    # The job's signature is the placeholders (none for in-job data), not body's *inputs.
    body.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    body.__annotations__ = {p.name: p.annotation for p in params}
    body.__name__ = body.__qualname__ = name
    return global_function(type=job_type, function_config=cfg.exe_cfg)(body)


class TrainingPart(Part):
    """One training job per optimizer (``flow.optimizer``'s), run in optimizer order every
    step; ``training_part`` in _model.py checks the config and gets the optimizers."""

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
        self.numpy_input = isinstance(cfg.data, NumpyDataModule)
        # The step-0 batches fix the placeholders and feed the first step.
        self.first_batches = [
            cfg.data(0, i) if self.numpy_input else None for i in range(len(self.optimizers))
        ]
        self.jobs = [self._make_job(i) for i in range(len(self.optimizers))]

    def _make_job(self, optimizer_idx: int) -> JobFunction:
        model, data, opt = self.model, self.cfg.data, self.optimizers[optimizer_idx]
        batch = self.first_batches[optimizer_idx]

        def body(*inputs: Any) -> Any:
            fed = inputs if batch is not None else data(0, optimizer_idx)
            outputs = model.training_step(batch=fed, optimizer_idx=optimizer_idx)
            opt.minimize(first_output(outputs))
            return outputs

        kind = "numpy_job" if batch is not None else "job"
        name = f"{type(model).__name__}_Model_train_{kind}_{optimizer_idx}"
        return _job(body, name, "train", self.cfg, data, batch, optimizer_idx)

    def step(self, step_idx: int) -> None:
        for i, job in enumerate(self.jobs):
            if not self.numpy_input:
                args: Sequence[Any] = ()
            elif step_idx == 0:
                args = self.first_batches[i]
            else:
                args = self.cfg.data(step_idx, i)
            outputs = job(*args).get()
            self._notify(
                "on_training_step_end", outputs=outputs, step_idx=step_idx, optimizer_idx=i
            )


def configured_optimizers(model: Model) -> list[Optimizer] | list[EagerOptimizer]:
    """``model.configure_optimizers()`` as a list: all job optimizers (``flow.optimizer``,
    lazy training) or all eager ones (``flow.optim``, eager training)."""
    conf = model.configure_optimizers()
    opts = list(conf) if isinstance(conf, (list, tuple)) else [conf]
    lazy = all(isinstance(o, Optimizer) for o in opts)
    eager = all(isinstance(o, EagerOptimizer) for o in opts)
    if opts and (lazy or eager):
        return opts
    bad = [type(o).__name__ for o in opts if not isinstance(o, (Optimizer, EagerOptimizer))]
    if bad:
        got = f" holding {', '.join(bad)}" if isinstance(conf, (list, tuple)) else ""
    elif opts:
        got = " mixing the two kinds"
    else:
        got = " that is empty"
    raise ModelError(
        f"{type(model).__name__}.configure_optimizers() must return a flow.optimizer "
        "Optimizer (job training), a flow.optim Optimizer (eager training) or a list/tuple "
        f"of one of the two kinds, got {type(conf).__name__}{got}"
    )


class ValidationPart(Part):
    """A predict job run after every ``step_interval``-th training step."""

    name = "validation"

    def __init__(self, cfg: ValidationConfig | None, model: Model, callbacks: list[Callback]):
        super().__init__(cfg, model, callbacks)
        self.require_override("validation_step")
        if not self.is_valid:
            return
        data = cfg.data
        self.numpy_input = isinstance(data, NumpyDataModule)
        batch = self.first_batch = data(0, 0) if self.numpy_input else None

        def body(*inputs: Any) -> Any:
            return model.validation_step(batch=inputs if batch is not None else data(0, 0))

        kind = "numpy_job" if batch is not None else "job"
        self.job = _job(
            body, f"{type(model).__name__}_Model_eval_{kind}", "predict", cfg, data, batch, 0
        )

    def step(self, step_idx: int) -> None:
        if (step_idx + 1) % self.cfg.step_interval:
            return
        if not self.numpy_input:
            args: Sequence[Any] = ()
        elif step_idx == 0:
            args = self.first_batch
        else:
            args = self.cfg.data(step_idx, 0)
        outputs = self.job(*args).get()
        self._notify("on_validation_step_end", outputs=outputs, step_idx=step_idx)


class CheckpointPart(Part):
    """Loads a checkpoint before the first step; saves ``<dirpath>-<step_idx>``."""

    name = "checkpointing"

    def __init__(self, cfg: CheckpointConfig | None, model: Model, callbacks: list[Callback]):
        super().__init__(cfg, model, callbacks)

    def load(self) -> None:
        if self.cfg.need_load:
            # Variables the checkpoint lacks keep their initial values (with a warning).
            checkpoint.load_variables(checkpoint.get(self.cfg.load_dirpath))

    def step(self, step_idx: int) -> None:
        if self.cfg.need_save and (step_idx + 1) % self.cfg.save_step_interval == 0:
            checkpoint.save(f"{self.cfg.save_dirpath}-{step_idx}")
