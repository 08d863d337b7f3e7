"""``config.train.*`` and ``flow.global_function(func_config)``: OneFlow's mid-2020 way to make
a job train, translated here into the optimizer a new-style body would pass to ``minimize``.

The runtime knows nothing of these settings: it asks a job's config for its
``implicit_optimizer()``, which this module's :class:`FunctionConfig` answers from
``config.train``.
"""

from __future__ import annotations

import copy
from typing import Any

from .. import runtime
from .._deprecation import warn_once
from ._model_update_conf import from_model_update_conf

_TRAIN_DEPRECATION = (
    "func_config.train.* has been deprecated. Please replace it by the new optimizer api."
)


class TrainConfig:
    """``config.train.*``: the legacy (mid-2020) way to make a job a training job."""

    def __init__(self) -> None:
        self.primary_lr_value: float | None = None
        self.secondary_lr_value: float | None = None
        self.model_update: dict[str, Any] | None = None
        self.loss_scale: float | None = None
        self.gradient_accumulation_steps = 1

    @property
    def configured(self) -> bool:
        return self.primary_lr_value is not None or self.model_update is not None

    def primary_lr(self, value: float) -> None:
        warn_once("train_conf", _TRAIN_DEPRECATION)
        self.primary_lr_value = float(value)

    def secondary_lr(self, value: float) -> None:
        warn_once("train_conf", _TRAIN_DEPRECATION)
        self.secondary_lr_value = float(value)

    def model_update_conf(self, conf: dict[str, Any]) -> None:
        warn_once("train_conf", _TRAIN_DEPRECATION)
        if not isinstance(conf, dict):
            raise TypeError(f"model_update_conf takes a dict, got {type(conf).__name__}")
        self.model_update = copy.deepcopy(conf)

    def loss_scale_factor(self, value: float) -> None:
        warn_once("train_conf", _TRAIN_DEPRECATION)
        self.loss_scale = float(value)

    def num_gradient_accumulation_steps(self, value: int) -> None:
        warn_once("train_conf", _TRAIN_DEPRECATION)
        self.gradient_accumulation_steps = int(value)

    def optimizer(self) -> Any:
        """The optimizer these settings declare (plain SGD when only ``primary_lr`` is set),
        or None when none was set."""
        if not self.configured:
            return None
        return from_model_update_conf(
            self.model_update or {"naive_conf": {}}, self.primary_lr_value, self.secondary_lr_value
        )


class FunctionConfig(runtime.FunctionConfig):
    """``flow.function_config()``: the runtime's job settings plus the legacy ``train`` ones."""

    def __init__(self) -> None:
        super().__init__()
        self.train = TrainConfig()

    def implicit_optimizer(self) -> Any:
        return self.train.optimizer()


def function_config() -> FunctionConfig:
    """A new job configuration: ``config = flow.function_config()``."""
    return FunctionConfig()


def global_function(type: Any = "predict", function_config: Any = None):  # noqa: A002
    """Declares a job: ``@flow.global_function(type="train", function_config=config)``.

    The old form ``@flow.global_function(config)`` still works (with OneFlow's deprecation
    warning); then the job trains only if the config has a legacy ``train`` setting.
    """
    if isinstance(type, runtime.FunctionConfig):
        warn_once(
            "global_function(func_config)",
            "flow.global_function(func_config) is "
            "deprecated. Please replace it with flow.global_function(type, func_config).",
        )
        config = copy.deepcopy(type)
        job_type = "predict" if config.implicit_optimizer() is None else "train"
        return runtime.global_function(job_type, config)
    return runtime.global_function(type, function_config)


def function(config: runtime.FunctionConfig | None = None):
    """Pre-0.2 spelling of ``global_function(config)``."""
    warn_once(
        "oneflow.function", "oneflow.function is deprecated in favor of oneflow.global_function"
    )
    return global_function(config if config is not None else FunctionConfig())
