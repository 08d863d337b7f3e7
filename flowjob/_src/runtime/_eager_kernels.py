"""Eager mode's kernels: each op's lowering compiled once per attributes and argument shapes.

An eager call runs its ops one by one (the body, then, in a train call, the graph again under
``jax.value_and_grad``). Calling a lowering as it is dispatches every ``jax.numpy`` operation
inside it separately; OneFlow's eager ``test_softmax`` took 237 s against 39 s lazily. Here an
op's lowering runs as one ``jax.jit`` function per (lowering, attributes), which JAX caches
per argument shape and dtype; gradients of a jitted function are jitted too.

A lowering that needs concrete values (Python control flow on its inputs) cannot be traced:
it is remembered and runs as before, un-jitted.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator
from typing import Any

import jax

from .. import kernels
from ..graph import op_key

_local = threading.local()
_kernels: dict[Any, Callable[..., Any] | None] = {}
_lock = threading.Lock()
MAX_KERNELS = 4096
_UNTRACEABLE = (
    jax.errors.ConcretizationTypeError,
    jax.errors.TracerArrayConversionError,
    jax.errors.TracerBoolConversionError,
    jax.errors.TracerIntegerConversionError,
)


def active() -> bool:
    """Whether ops evaluated on this thread run through cached kernels (an eager call)."""
    return getattr(_local, "on", False)


@contextlib.contextmanager
def eager_kernels() -> Iterator[None]:
    saved = active()
    _local.on = True
    try:
        yield
    finally:
        _local.on = saved


def run(
    lowering: Callable[..., Any], args: list[Any], kwargs: dict[str, Any], key: Any = None
) -> Any:
    """``lowering(*args, **kwargs)`` through its cached kernel, with ``key=key`` for a random
    op (passed as an array); the keyword arguments (attributes) are fixed in the kernel."""
    identity = op_key(lowering, kwargs)
    if identity is None:  # attributes that are not plain values: run as it is
        return _plain(lowering, args, kwargs, key)
    # The platform picks lowerings (oneDNN or not) outside what jax.jit keys its cache on.
    cache_key = (identity, key is None, kernels.lowering_platform())
    kernel = _kernels.get(cache_key, False)
    if kernel is False:
        kernel = _jitted(lowering, kwargs, key is not None)
        with _lock:
            if len(_kernels) >= MAX_KERNELS:  # bodies that make new functions every call
                _kernels.clear()
            _kernels[cache_key] = kernel
    if kernel is None:
        return _plain(lowering, args, kwargs, key)
    try:
        return kernel(key, *args) if key is not None else kernel(*args)
    except _UNTRACEABLE:
        with _lock:
            _kernels[cache_key] = None
        return _plain(lowering, args, kwargs, key)


def _plain(lowering, args, kwargs, key):
    return lowering(*args, **kwargs, key=key) if key is not None else lowering(*args, **kwargs)


def _jitted(lowering: Callable[..., Any], kwargs: dict[str, Any], keyed: bool):
    if keyed:
        return jax.jit(lambda key, *args: lowering(*args, **kwargs, key=key))
    return jax.jit(functools.partial(lowering, **kwargs))
