"""Tracebacks that show the user's frames: flowjob's own frames are hidden (as JAX hides its).

An error that leaves flowjob through an API entry point (a job call, ``sync_default_session``,
checkpoint calls...) reaches the user with the frames inside the flowjob package removed, so
the traceback reads: the user's line that called flowjob, the user's job body line (when the
body raised), and flowjob's one-line cause. A note at the end says how to see everything:
``FLOWJOB_TRACEBACK_FILTERING=off`` keeps every frame.

Frames are told apart by file path: a frame is internal when its file lies under the
directory of the ``flowjob`` package (wherever inside it the module lives).
"""

from __future__ import annotations

import functools
import os
import sys
import traceback
import types
from collections.abc import Callable
from typing import Any, TypeVar

from .errors import FlowJobError

__all__ = [
    "ENV_VAR",
    "api_boundary",
    "filter_traceback",
    "filtering_enabled",
    "format_exception",
    "is_internal",
    "leaving",
]

ENV_VAR = "FLOWJOB_TRACEBACK_FILTERING"
_OFF = frozenset({"off", "0", "false", "no"})
# The ``flowjob`` package's folder, found from the package itself so that this module may
# live anywhere inside it.
_PACKAGE_DIR = os.path.dirname(os.path.abspath(sys.modules[__name__.split(".")[0]].__file__))
_NOTE = (
    f"(flowjob's internal frames are hidden from this traceback; set {ENV_VAR}=off to show them)"
)

F = TypeVar("F", bound=Callable[..., Any])


def filtering_enabled() -> bool:
    """Whether internal frames are hidden: yes unless ``FLOWJOB_TRACEBACK_FILTERING=off``."""
    return os.environ.get(ENV_VAR, "on").strip().lower() not in _OFF


def is_internal(filename: str) -> bool:
    """Whether ``filename`` is a module of the flowjob package."""
    return os.path.abspath(filename).startswith(_PACKAGE_DIR + os.sep)


def filter_traceback(tb: types.TracebackType | None) -> types.TracebackType | None:
    """``tb`` without the entries of internal frames (a new chain; ``tb`` is unchanged)."""
    kept = []
    while tb is not None:
        if not is_internal(tb.tb_frame.f_code.co_filename):
            kept.append(tb)
        tb = tb.tb_next
    filtered = None
    for entry in reversed(kept):
        filtered = types.TracebackType(filtered, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return filtered


def _raised_by_flowjob(exc: BaseException) -> bool:
    """Whether ``exc`` is one of flowjob's errors, raised by flowjob's code."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return (
        isinstance(exc, FlowJobError)
        and tb is not None
        and is_internal(tb.tb_frame.f_code.co_filename)
    )


def format_exception(exc: BaseException) -> str:
    """``traceback.format_exception(exc)``, internal frames hidden unless filtering is off
    (for errors kept as text, such as those of the user's handlers)."""
    if filtering_enabled():
        _filter_chain(exc, note=False)
    return "".join(traceback.format_exception(exc))


def _filter_chain(exc: BaseException, note: bool = True) -> None:
    """Filters ``exc`` and the exceptions chained to it (``__cause__``, ``__context__``),
    each once; the note goes on ``exc`` only."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if _raised_by_flowjob(current) and current.__cause__ is None:
            # flowjob's own error raised while handling another: its message is the cause;
            # the exception it replaced is an internal detail.
            current.__suppress_context__ = True
        current.with_traceback(filter_traceback(current.__traceback__))
        todo += [current.__cause__, None if current.__suppress_context__ else current.__context__]
    notes = getattr(exc, "__notes__", ())
    if note and hasattr(exc, "add_note") and _NOTE not in notes:
        exc.add_note(_NOTE)


def api_boundary(fn: F) -> F:
    """Decorates a public entry point: exceptions leaving it lose flowjob's internal frames.

    Nested boundaries (a job call whose body calls another decorated API) filter again, which
    removes only the frames added in between.
    """

    @functools.wraps(fn)
    def boundary(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            leaving(exc)
            # A bare raise keeps exc.__traceback__ as set: this frame is not added again.
            raise

    return boundary  # type: ignore[return-value]


def leaving(exc: BaseException) -> None:
    """What ``api_boundary`` does to an exception leaving the entry point, for an entry point
    that catches it itself (a job call saves the wrapper's frame); re-raise it with a bare
    ``raise``."""
    if filtering_enabled():
        _filter_chain(exc)
