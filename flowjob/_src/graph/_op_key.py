"""A hashable identity of an op's computation: its lowering and attributes.

Two ops with equal keys compute the same function of their inputs, so what is derived from
one (its output shapes, eager mode's compiled kernel) serves the other. Ops that a body makes
anew on every call wrap one function in a new ``functools.partial``; the partial's parts are
its identity. Attributes that are not plain values (arrays held by JAX, sets, objects without
a hash) give no key: such ops are derived afresh each time.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np


def op_key(lowering: Callable[..., Any], attrs: dict[str, Any]) -> Any:
    """The key of ``lowering(*inputs, **attrs)``; ``None`` when it has none."""
    try:
        return (_identity(lowering), _frozen(attrs))
    except TypeError:
        return None


def _identity(lowering: Callable[..., Any]) -> Any:
    if isinstance(lowering, functools.partial):
        return ("partial", lowering.func, _frozen(lowering.args), _frozen(lowering.keywords))
    hash(lowering)
    return lowering


def _frozen(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_frozen(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((str(k), _frozen(v)) for k, v in value.items())))
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, set) or hasattr(value, "__jax_array__"):
        raise TypeError("not a plain attribute")
    if callable(value):  # a function the lowering calls (jax.nn.relu is a custom_jvp)
        hash(value)
        return ("callable", value)
    if type(value).__module__.startswith("jax"):  # arrays, tracers: values, not attributes
        raise TypeError("not a plain attribute")
    hash(value)
    return (type(value), value)
