"""Micro-batches in a job: ``flow.unpack`` / ``flow.pack`` and ``flow.repeat`` / ``flow.acc``.

In OneFlow these ops change how often the ops between them run: ``unpack(x, n)`` feeds the
next ops ``n`` pieces of ``x`` in turn and ``pack(y, n)`` concatenates their ``n`` results;
``repeat(x, n)`` feeds the same ``x`` ``n`` times and ``acc(y, n)`` sums the ``n`` results
(OneFlow's gradient accumulation). flowjob holds the ``n`` values stacked on a leading axis
and runs the ops between on each (graph/_apply.py ``MicroBatches``); blobs keep OneFlow's
per-micro-batch shapes, and gradients flow back through all four.
"""

from __future__ import annotations

import jax.numpy as jnp

from ..graph import Blob, MicroBatches, apply_op
from ._util import check_name, fail, require_blob


def _count(public: str, value: object, what: str, name: str | None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        fail(public, f"{what} must be a positive int, got {value!r}", name)
    return value


def _gathering(public: str, x: Blob, n: int, what: str, name: str | None) -> None:
    if x.micro_batches != n:
        fail(
            public,
            f"{what} {n} differs from the {x.micro_batches} micro-batch(es) of {x.lbn}",
            name,
        )


def _lower_repeat(x, *, repeat_num):
    return jnp.broadcast_to(x, (repeat_num, *x.shape))


def repeat(input: Blob, repeat_num: int, name: str | None = None) -> Blob:  # noqa: A002
    """``input`` given ``repeat_num`` times to the ops after it (gather with ``flow.acc``)."""
    public = "flow.repeat"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    n = _count(public, repeat_num, "repeat_num", name)
    return apply_op(
        "repeat",
        _lower_repeat,
        [input],
        attrs={"repeat_num": n},
        name=name,
        prefix="Repeat",
        micro_batches=MicroBatches(count=n),
    )


def _lower_acc(x, *, max_acc_num):
    return jnp.sum(x, axis=0, dtype=x.dtype)


def acc(one: Blob, max_acc_num: int, name: str | None = None) -> Blob:
    """The sum of the ``max_acc_num`` micro-batches of ``one``."""
    public = "flow.acc"
    name = check_name(public, name)
    require_blob(public, one, "one", name)
    n = _count(public, max_acc_num, "max_acc_num", name)
    _gathering(public, one, n, "max_acc_num", name)
    return apply_op(
        "acc",
        _lower_acc,
        [one],
        attrs={"max_acc_num": n},
        name=name,
        prefix="Acc",
        micro_batches=MicroBatches(gather=True),
    )


def _lower_unpack(x, *, unpack_num):
    return x.reshape(unpack_num, x.shape[0] // unpack_num, *x.shape[1:])


def unpack(input: Blob, unpack_num: int, name: str | None = None) -> Blob:  # noqa: A002
    """``input`` cut on its first axis into ``unpack_num`` pieces given in turn to the ops
    after it (gather with ``flow.pack``)."""
    public = "flow.unpack"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    n = _count(public, unpack_num, "unpack_num", name)
    if input.ndim == 0 or input.shape[0] % n:
        fail(public, f"the first axis of {input.lbn} {input.shape} does not split into {n}", name)
    return apply_op(
        "unpack",
        _lower_unpack,
        [input],
        attrs={"unpack_num": n},
        name=name,
        prefix="Unpack",
        micro_batches=MicroBatches(count=n),
    )


def _lower_pack(x, *, pack_num):
    return x.reshape(x.shape[0] * x.shape[1], *x.shape[2:])


def pack(input: Blob, pack_num: int, name: str | None = None) -> Blob:  # noqa: A002
    """The ``pack_num`` micro-batches of ``input`` concatenated on their first axis."""
    public = "flow.pack"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    n = _count(public, pack_num, "pack_num", name)
    _gathering(public, input, n, "pack_num", name)
    if input.ndim == 0:
        fail(public, f"{input.lbn} has no axis to concatenate on", name)
    return apply_op(
        "pack",
        _lower_pack,
        [input],
        attrs={"pack_num": n},
        name=name,
        prefix="Pack",
        micro_batches=MicroBatches(gather=True),
    )
