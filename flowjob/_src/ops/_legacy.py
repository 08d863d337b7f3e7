"""Deprecated OneFlow spellings of ops, in one place; each prints OneFlow's deprecation line
once per process and otherwise works as before (``flow.truncated_normal``)."""

from __future__ import annotations

from .._deprecation import warn_once
from ._distributions import Initializer, _truncated


def truncated_normal(stddev: float = 1.0) -> Initializer:
    """Deprecated ``flow.truncated_normal(stddev)``: mean 0, truncated at 2 sigma."""
    warn_once(
        "truncated_normal",
        "oneflow.truncated_normal is deprecated, use "
        "oneflow.truncated_normal_initializer(mean=0.0, stddev=...) instead",
    )
    if stddev < 0:
        raise ValueError(f"truncated_normal: stddev must be >= 0, got {stddev}")
    stddev = float(stddev)
    return Initializer(
        {"truncated_normal_conf": {"std": stddev}},
        _truncated(0.0, stddev),
        f"truncated_normal(stddev={stddev!r})",
    )
