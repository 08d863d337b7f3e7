"""``flow.model``: OneFlow v0.4's Keras-like training loop, on job functions or eagerly (a
``Model`` is an ``nn.Module``; ``flow.optim`` optimizers make ``fit`` run eagerly).

``Model`` (``training_step``, ``validation_step``, ``configure_optimizers``, ``fit``), its data
sources ``DataModule``/``NumpyDataModule``, the ``TrainingConfig``/``ValidationConfig``/
``CheckpointConfig`` settings and ``Callback`` hooks; ``ProgressBar`` and
``TensorBoardLogger`` are ready-made callbacks (``fit(progress_bar=..., summary_logdir=...)``).
"""

from ._callback import Callback
from ._configs import CheckpointConfig, TrainingConfig, ValidationConfig
from ._data import DataModule, NumpyDataModule
from ._errors import ModelError
from ._model import Model
from ._reporting import ProgressBar, TensorBoardLogger

__all__ = [
    "Callback",
    "CheckpointConfig",
    "DataModule",
    "Model",
    "ModelError",
    "NumpyDataModule",
    "ProgressBar",
    "TensorBoardLogger",
    "TrainingConfig",
    "ValidationConfig",
]
