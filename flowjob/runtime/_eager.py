"""``flow.enable_eager_execution`` / ``flow.eager_execution_enabled``: flowjob is lazy only."""

from __future__ import annotations


def eager_execution_enabled() -> bool:
    """Always ``False``: every job function is traced once and compiled (OneFlow's lazy mode)."""
    return False


def enable_eager_execution(val: bool = True) -> None:
    """Accepts OneFlow's default (``False``, lazy); asking for eager mode is an error."""
    if val:
        raise NotImplementedError(
            "flow.enable_eager_execution(True): flowjob has no eager mode; job functions are "
            "always lazy (traced once, compiled with JAX). Leave eager execution off."
        )
