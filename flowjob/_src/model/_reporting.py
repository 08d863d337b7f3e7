"""Built-in callbacks: a one-line progress bar and TensorBoard logging of the step outputs."""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

import numpy as np

from ..summary import SummaryWriter
from ._callback import Callback
from ._loops import first_output


def output_mean(outputs: Any) -> float:
    """The mean of a step's first output (its loss), as a Python float."""
    first = first_output(outputs)
    value = first.numpy() if hasattr(first, "numpy") else first
    return float(np.mean(np.asarray(value)))


class ProgressBar(Callback):
    """``step 12/100 [###-------] loss 0.4321 val 0.5012`` on ``stream`` (default stderr).

    On a terminal the one line is redrawn after every step; elsewhere (logs, pipes) a line is
    written about every tenth of the run and at the last step, so files stay short.
    """

    def __init__(self, stream: TextIO | None = None, width: int = 20):
        self._stream = stream
        self._width = width
        self._total = 0
        self._losses: dict[int, float] = {}
        self._val: float | None = None
        self._drawn = False

    @property
    def stream(self) -> TextIO:
        return self._stream if self._stream is not None else sys.stderr

    def _tty(self) -> bool:
        isatty = getattr(self.stream, "isatty", None)
        return bool(isatty and isatty())

    def on_fit_start(self, max_steps: int) -> None:
        self._total, self._losses, self._val, self._drawn = max_steps, {}, None, False

    def on_training_step_end(self, outputs: Any, step_idx: int = 0, optimizer_idx: int = 0) -> None:
        self._losses[optimizer_idx] = output_mean(outputs)
        self._draw(step_idx)

    def on_validation_step_end(self, outputs: Any, step_idx: int = 0) -> None:
        self._val = output_mean(outputs)
        self._draw(step_idx)

    def line(self, step_idx: int) -> str:
        done = step_idx + 1
        filled = self._width * done // self._total if self._total else self._width
        bar = "#" * filled + "-" * (self._width - filled)
        losses = " ".join(
            f"loss{'' if i == 0 else i} {v:.6g}" for i, v in sorted(self._losses.items())
        )
        val = "" if self._val is None else f" val {self._val:.6g}"
        return f"step {done}/{self._total} [{bar}] {losses}{val}"

    def _draw(self, step_idx: int) -> None:
        if self._tty():
            self.stream.write("\r" + self.line(step_idx) + "\x1b[K")
            self._drawn = True
        else:
            every = max(1, self._total // 10)
            if (step_idx + 1) % every == 0 or step_idx + 1 == self._total:
                self.stream.write(self.line(step_idx) + "\n")
        self.stream.flush()

    def on_fit_end(self) -> None:
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False


class TensorBoardLogger(Callback):
    """Logs the mean of each step's first output to ``logdir``: the tags ``train/loss``
    (``train/loss_<i>`` for optimizer i > 0) and ``validation/output``, at ``step_idx``."""

    def __init__(self, logdir: str | os.PathLike):
        self.logdir = os.fspath(logdir)
        self._writer: SummaryWriter | None = None

    def on_fit_start(self, max_steps: int) -> None:
        if self._writer is None:
            self._writer = SummaryWriter(self.logdir)

    def on_training_step_end(self, outputs: Any, step_idx: int = 0, optimizer_idx: int = 0) -> None:
        tag = "train/loss" if optimizer_idx == 0 else f"train/loss_{optimizer_idx}"
        self._writer.scalar(tag, output_mean(outputs), step_idx)

    def on_validation_step_end(self, outputs: Any, step_idx: int = 0) -> None:
        self._writer.scalar("validation/output", output_mean(outputs), step_idx)

    def on_fit_end(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
