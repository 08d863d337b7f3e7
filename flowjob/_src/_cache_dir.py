"""Where flowjob keeps what it learns about this machine between processes."""

from __future__ import annotations

import os

__all__ = ["configured_cache_dir", "default_cache_dir"]


def default_cache_dir() -> str:
    """``$XDG_CACHE_HOME/flowjob/jax`` (``~/.cache`` when unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "flowjob", "jax")


def configured_cache_dir() -> str | None:
    """``FLOWJOB_CACHE_DIR`` (empty: no cache, None) or :func:`default_cache_dir`."""
    return os.environ.get("FLOWJOB_CACHE_DIR", default_cache_dir()) or None
