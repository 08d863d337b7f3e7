"""OneFlow v0.4's experimental ``optim``: optimizers over a module's parameters (``SGD``,
``Adam``, ``AdamW``, ``RMSprop``; one file each, over a small ``Optimizer`` base) and
``lr_scheduler``. Their updates are chains of ``optimizer.transforms``, the links the job
optimizers run."""

from . import lr_scheduler
from ._adam import Adam
from ._adamw import AdamW
from ._optimizer import Optimizer, ParamGroup
from ._rmsprop import RMSprop
from ._sgd import SGD

__all__ = ["Optimizer", "ParamGroup", "SGD", "Adam", "AdamW", "RMSprop", "lr_scheduler"]
