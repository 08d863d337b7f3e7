"""``oneflow.python.framework.id_util``: process-unique names for ops built by hand."""

from __future__ import annotations

import itertools
import threading

_counter = itertools.count()
_lock = threading.Lock()


def UniqueStr(prefix: str) -> str:  # noqa: N802 - OneFlow's name
    """``prefix`` followed by a number never returned before in this process."""
    with _lock:
        return f"{prefix}{next(_counter)}"
