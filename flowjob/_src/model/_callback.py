"""``flow.model.Callback``: hooks ``Model.fit`` calls with each step's outputs."""

from __future__ import annotations

from typing import Any


class Callback:
    """Base of fit callbacks; override the hooks you need (the defaults do nothing).

    ``outputs`` is what ``training_step``/``validation_step`` returned: in job mode as host
    values (``LocalBlob``, or a tuple of them: ``outputs.numpy()``, ``outputs.mean()``), in
    eager mode the returned tensors themselves (read after the step's update).
    ``on_fit_start``/``on_fit_end`` are flowjob additions (OneFlow had only the step hooks).
    """

    def on_fit_start(self, max_steps: int) -> None:
        pass

    def on_training_step_end(self, outputs: Any, step_idx: int = 0, optimizer_idx: int = 0) -> None:
        pass

    def on_validation_step_end(self, outputs: Any, step_idx: int = 0) -> None:
        pass

    def on_fit_end(self) -> None:
        pass
