"""``flow.util``: ``unique_str``, OneFlow's generator of process-unique names."""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.util import (
    unique_str,
)

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
