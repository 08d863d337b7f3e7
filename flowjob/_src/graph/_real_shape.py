"""Real shapes of dynamic blobs: how an op's outputs' real shapes follow from its inputs'.

A dynamic (``tp.ListNumpy``) blob is held zero-padded to its declared maximum shape; beside it
the runtime knows its *real* shape. An op accepts dynamic inputs only if it declares a
``RealShape``: ``rule`` maps the inputs' real shapes (host ints; a static input's real shape is
its shape) to the outputs', and raises ``ValueError`` when they do not fit together; the runtime
evaluates the rules once per distinct set of argument shapes and cuts results to their real
shape. Padding holds arbitrary values after the first op, so an op whose result would depend on
it (a reduction, a sort, an offset) gives ``masked``: its lowering for dynamic inputs, called
with ``real=`` (one int32 array per input) in the compiled program.

A few ops make dynamic blobs whose real shape depends on input *values* (``argwhere``,
``sync_dynamic_resize``): they give ``device``, which computes that real shape in the program;
their ``rule`` gives its upper bound. The real shapes of blobs computed from theirs are worked
out in the program too (runtime/_dynamic.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp

Shape = tuple[int, ...]


@dataclass(frozen=True)
class RealShape:
    """``rule(shapes, padded, **attrs)`` -> the real shape of every output (one tuple) or one
    per output (a list); ``padded[i]`` is input i's padded shape, None for a static input.
    ``masked(*arrays, real=..., **attrs)``: the lowering for dynamic inputs, when padding
    could change the result. ``device(*arrays, real=..., **attrs)``: for an op whose outputs'
    real shapes depend on its input values, those shapes (an int array, or one per output)
    computed in the program; its outputs are dynamic even when its inputs are not."""

    rule: Callable[..., Any]
    masked: Callable[..., Any] | None = None
    device: Callable[..., Any] | None = None


def _same_as_dynamic_inputs(
    shapes: Sequence[Shape], padded: Sequence[Shape | None], **_: Any
) -> Shape:
    real = {s for s, p in zip(shapes, padded) if p is not None}
    if len(real) > 1:
        raise ValueError(f"its dynamic inputs have different real shapes {sorted(real)}")
    return real.pop()


# Elementwise ops: dynamic inputs have the output's padded shape, and so one real shape.
ELEMENTWISE = RealShape(_same_as_dynamic_inputs)


def valid_mask(real: Any, shape: Shape, axes: Sequence[int] | None = None) -> Any:
    """True where an index of ``shape`` lies inside the real shape ``real`` (on ``axes``)."""
    mask = jnp.ones(shape, bool)
    for axis in range(len(shape)) if axes is None else axes:
        iota = jnp.arange(shape[axis]).reshape([-1 if d == axis else 1 for d in range(len(shape))])
        mask = mask & (iota < real[axis])
    return mask


def lowest(dtype: Any) -> Any:
    """The value that sorts below every other of ``dtype`` (what masked-out maxima become)."""
    dtype = jnp.dtype(dtype)
    return -jnp.inf if jnp.issubdtype(dtype, jnp.floating) else jnp.iinfo(dtype).min
