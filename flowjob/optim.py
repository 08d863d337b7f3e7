"""``flow.optim``: OneFlow v0.4's eager optimizers over module parameters (``SGD``, ``Adam``,
``AdamW``, ``RMSprop``) and ``lr_scheduler`` (the legacy job optimizers are ``flow.optimizer``)."""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.optim import *  # noqa: F403 - this namespace is _src.optim's
from ._src.optim import __all__

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
