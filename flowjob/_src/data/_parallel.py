"""A shared thread pool for per-image work of the data pipeline (Pillow releases the GIL
while it decodes and resizes, so images of a batch are processed side by side)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def parallel_map(fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
    """``[fn(x) for x in items]`` in order, computed on the pool when there are several."""
    items = list(items)
    if len(items) < 2:
        return [fn(x) for x in items]
    global _pool
    with _lock:
        if _pool is None:
            workers = max(1, min(8, os.cpu_count() or 1))
            _pool = ThreadPoolExecutor(workers, thread_name_prefix="flowjob-images")
    return list(_pool.map(fn, items))
