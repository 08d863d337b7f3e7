"""Where a ``Model`` gets its batches: ``DataModule`` (ops inside the job) and
``NumpyDataModule`` (NumPy arrays fed to the job's placeholders)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import typing as tp
from .._dtypes import as_dtype
from ..imperative import Module
from ._errors import ModelError


class DataModule(Module):
    """A source of batches: ``forward(step_idx, optimizer_idx)`` returns one batch.

    Job mode: a plain ``DataModule`` is called inside the traced job (once, with step 0), so
    its ``forward`` builds data ops such as ``flow.data.ofrecord_image_classification_reader``
    whose values change on every run of the job. Eager mode: it is called before every step
    and returns that step's tensors. It is an ``nn.Module``, as in OneFlow v0.4.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, step_idx: int = 0, optimizer_idx: int = 0) -> Any:
        return None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def infer_oneflow_data_placeholder(
        self, batch: Any = None, optimizer_idx: int = 0
    ) -> list[tp.ArgBlobDef] | None:
        """The placeholders a job needs for ``batch``; ``None``: the job takes no inputs."""
        return None


class NumpyDataModule(DataModule):
    """A source of NumPy batches: ``forward(step_idx, optimizer_idx)`` returns a tuple of
    ndarrays, called on the host before every step and fed to the job (in eager mode the
    arrays go to ``training_step`` as they are).

    Every batch must keep the shapes and dtypes of the first one (step 0), which fix the
    job's ``tp.Numpy.Placeholder`` inputs.
    """

    def infer_oneflow_data_placeholder(
        self, batch: Any = None, optimizer_idx: int = 0
    ) -> list[tp.ArgBlobDef]:
        name = type(self).__name__
        if not isinstance(batch, tuple):
            raise ModelError(
                f"{name}.forward(step_idx=0, optimizer_idx={optimizer_idx}) must "
                f"return a tuple of numpy.ndarray, got {type(batch).__name__}"
            )
        placeholders = []
        for i, item in enumerate(batch):
            if not isinstance(item, np.ndarray):
                raise ModelError(
                    f"{name}.forward(step_idx=0, optimizer_idx={optimizer_idx}) "
                    f"item {i} must be a numpy.ndarray, got {type(item).__name__}"
                )
            placeholders.append(tp.Numpy.Placeholder(item.shape, dtype=as_dtype(item.dtype)))
        return placeholders
