"""``oneflow.python.ops.transpose_util``: permutations that move an axis last and back."""

from __future__ import annotations

from collections.abc import Sequence


def get_perm_when_transpose_axis_to_last_dim(num_axes: int, axis: int) -> tuple[int, ...]:
    """The permutation moving ``axis`` (negative counts from the end) to the last position."""
    axis = axis + num_axes if axis < 0 else axis
    if not 0 <= axis < num_axes:
        raise ValueError(f"axis {axis} is out of range for {num_axes} axes")
    return tuple(a for a in range(num_axes) if a != axis) + (axis,)


def get_inversed_perm(perm: Sequence[int]) -> tuple[int, ...]:
    """The permutation undoing ``perm``."""
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return tuple(inverse)
