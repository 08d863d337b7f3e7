"""``flow.optim``: OneFlow v0.4's eager optimizers over module parameters (``SGD``, ``Adam``,
``AdamW``, ``RMSprop``) and ``lr_scheduler`` (the legacy job optimizers are ``flow.optimizer``)."""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.optim import SGD, Adam, AdamW, Optimizer, ParamGroup, RMSprop, lr_scheduler

__all__ = ["Optimizer", "ParamGroup", "SGD", "Adam", "AdamW", "RMSprop", "lr_scheduler"]

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
