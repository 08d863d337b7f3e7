"""``flow.losses``: the legacy ``add_loss``."""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.ops.losses import (
    add_loss,
)

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
