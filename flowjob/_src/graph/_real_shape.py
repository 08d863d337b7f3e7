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
import numpy as np

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


def highest(dtype: Any) -> Any:
    """The value that sorts above every other of ``dtype`` (what masked-out minima become)."""
    dtype = jnp.dtype(dtype)
    if jnp.issubdtype(dtype, jnp.floating):
        return jnp.inf
    return True if dtype == jnp.bool_ else jnp.iinfo(dtype).max


def fill_padding(x: Any, real: Any, value: Any, axes: Sequence[int] | None = None) -> Any:
    """``x`` with ``value`` outside its real shape ``real`` (on ``axes``; default all)."""
    return jnp.where(valid_mask(real, x.shape, axes), x, jnp.asarray(value, x.dtype))


def zero_padded(lowering: Callable[..., Any]) -> Callable[..., Any]:
    """A masked lowering: ``lowering`` on inputs whose padding is zero. For ops whose real
    part reads only real elements, or zeros (a matmul's contraction, a row-wise loss):
    arbitrary padding (inf, NaN) then stays out of the values and of the gradients."""

    def masked(*arrays: Any, real: Sequence[Any], **attrs: Any) -> Any:
        return lowering(*(fill_padding(a, r, 0) for a, r in zip(arrays, real)), **attrs)

    return masked


def _broadcast_real(shapes: Sequence[Shape], padded: Sequence[Shape | None], **_: Any) -> Shape:
    try:
        return tuple(int(d) for d in np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(f"real shapes {[tuple(s) for s in shapes]} do not broadcast") from None


def _collapse_unit_axes(x: Any, real: Any) -> Any:
    """``x`` with every axis of real size 1 (padded larger) holding its first element
    throughout, so that it broadcasts as a size-1 axis."""
    for d in range(x.ndim):
        if x.shape[d] > 1:
            index = jnp.where(real[d] == 1, 0, jnp.arange(x.shape[d]))
            x = jnp.take(x, index, axis=d)
    return x


def broadcasting(lowering: Callable[..., Any]) -> RealShape:
    """The real-shape rule of an elementwise op whose inputs broadcast to its output at
    padded shapes: the output's real shape broadcasts the inputs' real shapes, and an axis of
    real size 1 broadcasts its one real element (not the padding after it)."""

    def masked(*arrays: Any, real: Sequence[Any], **attrs: Any) -> Any:
        return lowering(*(_collapse_unit_axes(a, r) for a, r in zip(arrays, real)), **attrs)

    return RealShape(_broadcast_real, masked)


def elementwise_or_broadcasting(
    lowering: Callable[..., Any], shapes: Sequence[Shape], out: Shape
) -> RealShape:
    """``ELEMENTWISE`` when every input has the output's shape, else ``broadcasting``."""
    if all(tuple(s) == tuple(out) for s in shapes):
        return ELEMENTWISE
    return broadcasting(lowering)
