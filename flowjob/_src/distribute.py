"""``flow.distribute``: SBP annotations and the old names of the logical views."""

from typing import Any

from .errors import FlowJobError, JobDefinitionError
from .graph import (
    Blob,
    Distribute,
    apply_op,
    auto,
    broadcast,
    current_placement,
    parse_parallel_distribution,
    split,
)

__all__ = [
    "auto",
    "broadcast",
    "split",
    "assert_is_valid_distribute",
    "parallel_cast",
    "hierarchical_parallel_cast",
]


class InvalidDistributeError(FlowJobError, TypeError):
    """Not an SBP annotation (``flow.distribute.split(axis)``, ``broadcast()``, ``auto()``)."""


def assert_is_valid_distribute(distribute: Any) -> None:
    """Raises ``InvalidDistributeError`` unless ``distribute`` is an SBP annotation."""
    if not isinstance(distribute, Distribute):
        raise InvalidDistributeError(
            f"not a valid distribute policy: expected flow.distribute.split(axis), "
            f"broadcast() or auto(), got {distribute!r}"
        )


def parallel_cast(input, name=None, distribute=None, gradient_distribute=None):  # noqa: A002
    """Annotates ``input`` with an SBP distribution (``flow.distribute.split(k)`` ...)."""
    return input if distribute is None else input.with_distribute(distribute)


_GRAD_MODES = (None, "identity", "restore", "manual")


def _identity(x, **_placement_attrs):
    return x


def hierarchical_parallel_cast(
    input: Blob,  # noqa: A002 - OneFlow's name
    parallel_distribution: list[str],
    grad_mode: str | None = None,
    grad_parallel_distribution: list[str] | None = None,
    name: str | None = None,
) -> Blob:
    """OneFlow's 2-D SBP cast: ``input`` placed as ``parallel_distribution`` says, one entry
    (``"S(k)"``, ``"B"``, ``"P"``) per axis of the current placement's hierarchy (``["B"]``
    outside a hierarchical placement). On several devices it becomes a sharding constraint on
    a JAX mesh of that shape with one named axis per entry; the value is unchanged (in the
    consistent view a blob is always whole), and so is its gradient whatever ``grad_mode``."""
    where = "flow.hierarchical_parallel_cast"
    if not isinstance(input, Blob):
        raise TypeError(f"{where}: input must be a blob, got {type(input).__name__}")
    nd_sbp = parse_parallel_distribution(parallel_distribution, input.ndim, where)
    if grad_mode not in _GRAD_MODES:
        raise ValueError(f"{where}: grad_mode must be one of {_GRAD_MODES}, got {grad_mode!r}")
    if grad_parallel_distribution is not None:
        parse_parallel_distribution(grad_parallel_distribution, input.ndim, where)
    placed = current_placement()
    hierarchy = placed.hierarchy if placed is not None else None
    axes = len(hierarchy) if hierarchy else 1
    if len(nd_sbp) != axes:
        raise JobDefinitionError(
            f"{where}({input.lbn}): parallel_distribution {list(parallel_distribution)} has "
            f"{len(nd_sbp)} entries, but the placement's hierarchy "
            f"{list(hierarchy) if hierarchy else '(one axis)'} has {axes}"
        )
    return apply_op(
        "hierarchical_parallel_cast",
        _identity,
        [input],
        attrs={"nd_sbp": nd_sbp, "hierarchy": hierarchy},
        name=name,
        prefix="HierarchicalParallelCast",
        elementwise=True,
    )
