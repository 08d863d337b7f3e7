"""``flow.scope``: placement, namespace and logical-view scopes."""

from ._legacy import mirrored_view_enabled
from ._legacy import scope_current_scope as current_scope
from .graph import consistent_view, mirrored_view, namespace, placement


def consistent_view_enabled() -> bool:
    """True unless inside the body of a job with the mirrored logical view."""
    return not mirrored_view_enabled()


__all__ = [
    "consistent_view",
    "consistent_view_enabled",
    "current_scope",
    "mirrored_view",
    "mirrored_view_enabled",
    "namespace",
    "placement",
]
