"""Argument helpers the layers share."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def pair(value: Any) -> tuple:
    """``(v, v)`` for one value, the values themselves for an iterable (v0.4's ``_pair``)."""
    return tuple(value) if isinstance(value, Iterable) else (value, value)
