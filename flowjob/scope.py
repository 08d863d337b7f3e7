"""``flow.scope``: placement, namespace and logical-view scopes."""

from ._src import legacy as _legacy
from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.scope import (
    consistent_view,
    consistent_view_enabled,
    mirrored_view,
    mirrored_view_enabled,
    namespace,
    placement,
)

# OneFlow's deprecated spellings served here (each warns once when used, as OneFlow did).
_deprecations = {
    "current_scope": _legacy.scope_current_scope,
}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
