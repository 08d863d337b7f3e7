"""``flow.model``: OneFlow v0.4's Keras-like training loop, on job functions (``flow.optimizer``
optimizers) or eagerly (``flow.optim`` optimizers; ``Model`` is an ``nn.Module``).

``Model`` (``training_step``, ``validation_step``, ``configure_optimizers``, ``fit``), its data
sources ``DataModule``/``NumpyDataModule``, the ``TrainingConfig``/``ValidationConfig``/
``CheckpointConfig`` settings and ``Callback`` hooks; ``ProgressBar`` and
``TensorBoardLogger`` are ready-made callbacks (``fit(progress_bar=..., summary_logdir=...)``).
"""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.model import (
    Callback,
    CheckpointConfig,
    DataModule,
    Model,
    ModelError,
    NumpyDataModule,
    ProgressBar,
    TensorBoardLogger,
    TrainingConfig,
    ValidationConfig,
)

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
