"""Access to every job graph of the session without depending on the runtime."""

from __future__ import annotations

from collections.abc import Callable

from ._graph import JobGraph

_trace_all: Callable[[], list[JobGraph]] | None = None


def set_trace_all(fn: Callable[[], list[JobGraph]]) -> None:
    """Installed by the runtime: traces every defined job and returns the graphs."""
    global _trace_all
    _trace_all = fn


def all_job_graphs() -> list[JobGraph]:
    """The graphs of every job defined so far (tracing the ones not yet traced)."""
    if _trace_all is None:
        return []
    return _trace_all()
