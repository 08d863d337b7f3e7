"""``flow.scope``: placement, namespace and logical-view scopes."""

from ._deprecation import warn_once
from .graph import Scope, consistent_view, mirrored_view, namespace, placement
from .graph import current_scope as _current_scope


def current_scope() -> Scope:
    """Deprecated spelling of ``flow.current_scope()``."""
    warn_once("scope.current_scope", "oneflow.scope.current_scope will be removed in the "
                                     "future, use oneflow.current_scope instead.")
    return _current_scope()


__all__ = ["consistent_view", "current_scope", "mirrored_view", "namespace", "placement"]
