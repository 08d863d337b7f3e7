"""``flow.scope``: placement, namespace and logical-view scopes."""

from .graph import consistent_view, current_graph, in_job, mirrored_view, namespace, placement


def mirrored_view_enabled() -> bool:
    """True inside the body of a job whose logical view is mirrored
    (``func_config.default_logical_view(flow.scope.mirrored_view())``); the default view,
    outside jobs too, is consistent."""
    return in_job() and current_graph().config.logical_view == mirrored_view()


def consistent_view_enabled() -> bool:
    """True unless inside the body of a job with the mirrored logical view."""
    return not mirrored_view_enabled()


__all__ = [
    "consistent_view",
    "consistent_view_enabled",
    "mirrored_view",
    "mirrored_view_enabled",
    "namespace",
    "placement",
]
