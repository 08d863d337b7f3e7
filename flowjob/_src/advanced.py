"""``flow.advanced``: OneFlow's explicit per-device blobs of a consistent job.

``distribute_split`` cuts a blob into one piece per device of the current placement,
``distribute_clone`` gives each device a copy, ``distribute_concat`` / ``distribute_add``
join one blob per device back into one, and ``distribute_map`` applies a function to each
device's piece. In flowjob a consistent job is one program that JAX partitions, so these are
the same computations written on whole arrays: the pieces are real blobs of the job, and the
values match OneFlow's (pieces balanced as OneFlow's ``BalancedSplitter``: the first
``length % n`` pieces are one longer).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax.numpy as jnp

from .errors import JobDefinitionError
from .graph import Blob, apply_op, current_placement, placement
from .runtime import config as _runtime_config

__all__ = [
    "distribute_add",
    "distribute_clone",
    "distribute_concat",
    "distribute_map",
    "distribute_split",
]


def _parallel_num() -> int:
    """Devices of the current placement scope, else of the job (``gpu_device_num``)."""
    placed = current_placement()
    if placed is not None:
        return max(1, len(placed.device_ids()))
    return _runtime_config.process.device_num


def _check_blobs(where: str, xs: Any) -> list[Blob]:
    items = list(xs) if isinstance(xs, (list, tuple)) else None
    if not items or not all(isinstance(x, Blob) for x in items):
        raise TypeError(f"{where}: expected a list of blobs (one per device), got {xs!r}")
    n = _parallel_num()
    if len(items) != n:
        raise JobDefinitionError(
            f"{where}: got {len(items)} blob(s), but the placement has {n} device(s); "
            "pass one blob per device"
        )
    return items


def _sizes(length: int, n: int) -> list[int]:
    base, extra = divmod(length, n)
    return [base + (1 if i < extra else 0) for i in range(n)]


def _lower_split(x, *, axis, sizes):
    bounds = [sum(sizes[:i]) for i in range(1, len(sizes))]
    return tuple(jnp.split(x, bounds, axis=axis))


def _lower_clone(x, *, n):
    return tuple(x for _ in range(n))


def _lower_concat(*xs, axis):
    return jnp.concatenate(xs, axis=axis)


def _lower_add(*xs):
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


def distribute_split(x: Blob, axis: int = 0, name: str | None = None) -> tuple[Blob, ...]:
    """``x`` cut along ``axis`` into one piece per device."""
    if not isinstance(x, Blob):
        raise TypeError(f"flow.advanced.distribute_split: x must be a blob, got {x!r}")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(
            f"flow.advanced.distribute_split({x.lbn}): axis {axis} out of range for a "
            f"{x.ndim}-d blob"
        )
    axis %= x.ndim
    n = _parallel_num()
    if x.shape[axis] < n:
        raise JobDefinitionError(
            f"flow.advanced.distribute_split({x.lbn}): axis {axis} has {x.shape[axis]} "
            f"entries, fewer than the {n} devices"
        )
    out = apply_op(
        "distribute_split",
        _lower_split,
        [x],
        attrs={"axis": axis, "sizes": tuple(_sizes(x.shape[axis], n))},
        name=name,
        prefix="DistributeSplit",
    )
    return out if isinstance(out, tuple) else (out,)


def distribute_clone(x: Blob, name: str | None = None) -> tuple[Blob, ...]:
    """One copy of ``x`` per device."""
    if not isinstance(x, Blob):
        raise TypeError(f"flow.advanced.distribute_clone: x must be a blob, got {x!r}")
    out = apply_op(
        "distribute_clone",
        _lower_clone,
        [x],
        attrs={"n": _parallel_num()},
        name=name,
        prefix="DistributeClone",
    )
    return out if isinstance(out, tuple) else (out,)


def distribute_concat(xs: Sequence[Blob], axis: int = 0, name: str | None = None) -> Blob:
    """One blob per device, concatenated along ``axis``."""
    items = _check_blobs("flow.advanced.distribute_concat", xs)
    ndim = items[0].ndim
    if not -ndim <= axis < ndim:
        raise ValueError(
            f"flow.advanced.distribute_concat: axis {axis} out of range for {ndim}-d blobs"
        )
    return apply_op(
        "distribute_concat",
        _lower_concat,
        items,
        attrs={"axis": axis % ndim},
        name=name,
        prefix="DistributeConcat",
    )


def distribute_add(xs: Sequence[Blob], name: str | None = None) -> Blob:
    """The sum of one blob per device."""
    items = _check_blobs("flow.advanced.distribute_add", xs)
    return apply_op("distribute_add", _lower_add, items, name=name, prefix="DistributeAdd")


def distribute_map(
    xs: Blob | Sequence[Blob], f: Callable[..., Any], axis: int = 0
) -> Blob | tuple[Blob, ...]:
    """Splits each of ``xs`` along ``axis``, calls ``f`` on device i's pieces under a
    one-device placement, and concatenates the results along ``axis``."""
    blobs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    placed = current_placement()
    tag = placed.requested_tag if placed is not None else "cpu"
    machine = placed.device_ids()[0][0] if placed is not None else 0
    ids = [d for _, d in placed.device_ids()] if placed is not None else None
    pieces = list(zip(*(distribute_split(x, axis=axis) for x in blobs)))
    results, container = [], False
    for i, args in enumerate(pieces):
        device = ids[i] if ids is not None else i
        with placement(tag, f"{machine}:{device}"):
            result = f(*args)
        container = isinstance(result, (list, tuple))
        results.append(tuple(result) if container else (result,))
    joined = tuple(distribute_concat(list(outs), axis=axis) for outs in zip(*results))
    return joined if container else joined[0]
