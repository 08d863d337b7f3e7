"""``flow.util``: ``unique_str``, OneFlow's generator of process-unique names."""

from __future__ import annotations

import itertools
import threading
from collections import defaultdict

__all__ = ["unique_str"]

_counters: defaultdict[str, itertools.count] = defaultdict(itertools.count)
_lock = threading.Lock()


def unique_str(prefix: str) -> str:
    """``prefix`` followed by how many names with this prefix were made before in this
    process (``unique_str("Conv_")`` gives ``"Conv_0"``, then ``"Conv_1"``...): a name no
    earlier call returned."""
    with _lock:
        return f"{prefix}{next(_counters[str(prefix)])}"
