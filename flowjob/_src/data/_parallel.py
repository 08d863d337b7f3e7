"""A shared thread pool for per-image work of the data pipeline (Pillow releases the GIL
while it decodes and resizes, so images of a batch are processed side by side)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def parallel_map(fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
    """``[fn(x) for x in items]`` in order, computed on the pool when there are several."""
    items = list(items)
    if len(items) < 2:
        return [fn(x) for x in items]
    return list(_the_pool().map(fn, items))


def submit_all(fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Future]:
    """``fn(x)`` for each item, queued on the pool in order (it takes them first come,
    first served); the futures, in order."""
    pool = _the_pool()
    return [pool.submit(fn, x) for x in items]


def _the_pool() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            workers = max(1, min(8, os.cpu_count() or 1))
            _pool = ThreadPoolExecutor(workers, thread_name_prefix="flowjob-images")
    return _pool
