"""``flow.scope``: placement, namespace and logical-view scopes."""

from ._src.scope import (
    consistent_view,
    consistent_view_enabled,
    current_scope,
    mirrored_view,
    mirrored_view_enabled,
    namespace,
    placement,
)
