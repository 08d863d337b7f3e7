"""One-time warnings for deprecated OneFlow spellings."""

from __future__ import annotations

import sys
import threading
import warnings

_seen: set[str] = set()
_lock = threading.Lock()


class FlowJobDeprecationWarning(FutureWarning):
    """Issued with each one-time ``WARNING:`` line; hidden by default so users see the line
    once (as OneFlow printed it), while ``warnings``/pytest filters can still catch it."""


warnings.filterwarnings("ignore", category=FlowJobDeprecationWarning)


def warn_once(key: str, message: str) -> None:
    """Prints ``WARNING: <message>`` to stderr once per ``key`` and issues a warning."""
    with _lock:
        if key in _seen:
            return
        _seen.add(key)
    print(f"WARNING: {message}", file=sys.stderr)
    warnings.warn(message, FlowJobDeprecationWarning, stacklevel=3)
