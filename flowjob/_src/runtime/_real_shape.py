"""Mirrored view on one device: ListNumpy arguments smaller than their placeholders.

OneFlow gives such an argument to the job as a dynamic blob of its real shape, and every op
then works on the real data (argmax, concat, gather_nd, gradients...). flowjob first traces
the job with padded dynamic inputs, as OneFlow (``blob.shape`` is the declared maximum; one
program for every size: JobFunction.padded_mirrored). When an op of the body does not take
dynamic blobs, or an argument does not fit a padded blob (an empty dimension, or one larger
than declared within the declared element count, which OneFlow accepts), the job runs traced
at the real shapes instead: a variant job, compiled once per distinct set of shapes and
sharing the variables, so results and watched values have the real size. It applies when
every such argument is a one-array list (one device); with several devices, mirrored pieces
keep their declared shape, and consistent-view ListNumpy blobs stay padded dynamic blobs.
"""

from __future__ import annotations

import copy
import math
import types
from collections.abc import Callable, Sequence
from typing import Any


def real_shapes(params: Sequence[Any], args: Sequence[Any]) -> tuple | None:
    """Per parameter, the real shape of a one-array ListNumpy argument that fits its
    placeholder (None for the others); None when every argument has its declared shape. As
    in OneFlow, a real shape fits when it has the placeholder's rank and at most its number of
    elements: one dimension may exceed the declared one (``(2, 10)`` in ``(3, 7)``)."""
    if len(args) != len(params):
        return None  # the usual argument check reports it
    shapes: list[tuple[int, ...] | None] = []
    for spec, value in zip(params, args):
        shape = None
        d = spec.defs[0]
        if (
            not spec.is_tuple
            and d.is_dynamic
            and isinstance(value, (list, tuple))
            and len(value) == 1
        ):
            real = getattr(value[0], "shape", None)
            if (
                real is not None
                and len(real) == len(d.shape)
                and math.prod(real) <= math.prod(d.shape)
            ):
                shape = tuple(int(r) for r in real)
        shapes.append(None if shape == d.shape else shape)
    return tuple(shapes) if any(s is not None for s in shapes) else None


def variant_function(
    fn: Callable[..., Any],
    params: Sequence[Any],
    shapes: Sequence[tuple[int, ...] | None],
    name: str,
) -> Callable[..., Any] | None:
    """``fn`` with the placeholders of ``shapes`` declared at those shapes; None when ``fn``
    declares its placeholders as legacy default values (not annotations)."""
    annotations = dict(getattr(fn, "__annotations__", {}))
    if not isinstance(fn, types.FunctionType) or any(
        spec.name not in annotations for spec in params
    ):
        return None
    for spec, shape in zip(params, shapes):
        if shape is not None:
            annotations[spec.name] = at_real_shape(spec.defs[0], shape)
    new = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__, fn.__closure__)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__annotations__ = annotations
    new.__module__ = fn.__module__
    new.__qualname__ = name
    return new


def at_real_shape(placeholder: Any, shape: tuple[int, ...]) -> Any:
    """A copy of ``placeholder`` declared at an argument's real ``shape``."""
    real = copy.copy(placeholder)
    # not dataclasses.replace: a real shape may have 0-size dimensions (an empty index list),
    # which a declared placeholder may not
    object.__setattr__(real, "shape", shape)
    return real


def fits_padded(params: Sequence[Any], args: Sequence[Any]) -> bool:
    """Whether every ListNumpy argument is one array no larger than its placeholder in any
    dimension, nor empty: what a padded dynamic blob holds."""
    if len(args) != len(params):
        return True  # the usual argument check reports it
    for spec, value in zip(params, args):
        d = spec.defs[0]
        if spec.is_tuple or not d.is_dynamic:
            continue
        if not isinstance(value, (list, tuple)) or len(value) != 1:
            return True  # reported by the argument check
        real = getattr(value[0], "shape", None)
        if real is None or len(real) != len(d.shape):
            return True
        if not all(0 < r <= m for r, m in zip(real, d.shape)):
            return False
    return True
