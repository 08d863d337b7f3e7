"""What ``Model.fit`` runs: training, validation and checkpoint settings.

Each config checks itself (``check_valid()`` fills ``error_msg``); ``fit`` skips the part whose
config is invalid with a warning, as OneFlow v0.4 did, rather than raising.
"""

from __future__ import annotations

import os

from ..runtime import FunctionConfig
from ._data import DataModule


class _DataConfig:
    """Shared by the training and validation configs: the job's function config and data."""

    def __init__(self) -> None:
        self.exe_cfg: FunctionConfig = FunctionConfig()
        self.data: DataModule | None = None
        self.error_msg = ""

    def config_execution(self, exe_cfg: FunctionConfig | None = None) -> None:
        self.exe_cfg = exe_cfg

    def config_data(self, data: DataModule | None = None) -> None:
        self.data = data

    def _problems(self, what: str) -> list[str]:
        problems = []
        if not isinstance(self.exe_cfg, FunctionConfig):
            problems.append(
                f"{what} exe_cfg is not a flow.FunctionConfig (got {type(self.exe_cfg).__name__})"
            )
        if not isinstance(self.data, DataModule):
            problems.append(
                f"{what} data is not a flow.model.DataModule (got {type(self.data).__name__})"
            )
        return problems

    def check_valid(self) -> bool:
        problems = self._problems(type(self).__name__)
        self.error_msg = "".join(p + ";" for p in problems)
        return not problems


class TrainingConfig(_DataConfig):
    """Training: ``config_execution(function_config)`` and ``config_data(data_module)``."""


class ValidationConfig(_DataConfig):
    """Validation: as training, plus ``config_step_interval(n)``: validate after every n-th
    training step (steps n-1, 2n-1, ...; default 10)."""

    def __init__(self) -> None:
        super().__init__()
        self.step_interval = 10

    def config_step_interval(self, step_interval: int = 1) -> None:
        self.step_interval = step_interval

    def _problems(self, what: str) -> list[str]:
        problems = super()._problems(what)
        if not _positive_int(self.step_interval):
            problems.append(f"{what} step_interval must be an int > 0, got {self.step_interval!r}")
        return problems


class CheckpointConfig:
    """Checkpoints: ``config_load(dirpath)`` loads one before the first step;
    ``config_save(dirpath, step_interval)`` saves ``<dirpath>-<step_idx>`` after every
    ``step_interval``-th step (steps n-1, 2n-1, ...)."""

    def __init__(self) -> None:
        self.need_load = False
        self.load_dirpath: str | None = None
        self.need_save = False
        self.save_dirpath: str | None = None
        self.save_step_interval = 1
        self.error_msg = ""

    def config_load(self, dirpath: str | os.PathLike | None = None) -> None:
        if dirpath is None:
            raise ValueError("CheckpointConfig.config_load: dirpath must be a path, got None")
        self.need_load = True
        self.load_dirpath = os.fspath(dirpath)

    def config_save(self, dirpath: str | os.PathLike | None = None, step_interval: int = 1) -> None:
        if dirpath is None:
            raise ValueError("CheckpointConfig.config_save: dirpath must be a path, got None")
        if not _positive_int(step_interval):
            raise ValueError(
                "CheckpointConfig.config_save: step_interval must be an int > 0, "
                f"got {step_interval!r}"
            )
        self.need_save = True
        self.save_dirpath = os.fspath(dirpath)
        self.save_step_interval = step_interval

    def check_valid(self) -> bool:
        self.error_msg = ""  # config_load/config_save check their arguments already
        return True


def _positive_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
