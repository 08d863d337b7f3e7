"""``flow.scope``: placement, namespace and logical-view scopes."""

from ._legacy import scope_current_scope as current_scope
from .graph import consistent_view, mirrored_view, namespace, placement

__all__ = ["consistent_view", "current_scope", "mirrored_view", "namespace", "placement"]
