"""Argument checking shared by the ops: axes, constants, names, and error messages."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import jax.numpy as jnp
import numpy as np

from .. import _dtypes
from ..errors import OpError, describe_frame, user_frame
from ..graph import Blob, current_graph


def fail(op: str, message: str, name: str | None = None) -> NoReturn:
    """Raises an OpError naming the public op, the op name if given, and the user's line."""
    label = f"{op} (op {name!r})" if name else op
    raise OpError(f"{label}: {message}\n  at {describe_frame(user_frame())}")


def failer(op: str, name: str | None) -> Callable[[str], NoReturn]:
    """``fail`` bound to one op and name, for helpers that only know the message."""
    return lambda message: fail(op, message, name)


def layer_name(name: str | None, default: str) -> str:
    """OneFlow v0.4 named every unnamed layer ``default`` (a second one collided); mid-2020
    OneFlow named them uniquely. flowjob does both: the first unnamed layer of a job keeps
    ``default`` (so v0.4 checkpoints load), later ones get ``<default>_<n>``."""
    if name is not None:
        return name
    counts = current_graph().unnamed_layers
    n = counts.get(default, 0)
    counts[default] = n + 1
    return default if n == 0 else f"{default}_{n}"


def check_name(op: str, name: Any) -> str | None:
    if name is not None and (not isinstance(name, str) or not name):
        fail(op, f"name must be a non-empty str or None, got {name!r}")
    return name


def require_blob(op: str, value: Any, what: str, name: str | None = None) -> Blob:
    if not isinstance(value, Blob):
        fail(op, f"{what} must be a blob of the job, got {type(value).__name__}: {value!r}", name)
    return value


def dtype_arg(op: str, dtype: Any, name: str | None) -> _dtypes.DType:
    """A ``dtype=`` argument as a flowjob DType, or an OpError naming ``op``."""
    try:
        return _dtypes.as_dtype(dtype)
    except TypeError as exc:
        fail(op, f"dtype: {exc}", name)


def require_int_blob(op: str, value: Any, what: str, name: str | None = None) -> Blob:
    """``require_blob`` for index-like inputs: the blob must have an integer dtype."""
    blob = require_blob(op, value, what, name)
    if blob.dtype.np_dtype.kind not in "iu":
        fail(op, f"{what} must be integers, got {blob.dtype.name}", name)
    return blob


def norm_axis(op: str, axis: Any, ndim: int, name: str | None = None, what: str = "axis") -> int:
    """``axis`` as a non-negative int in ``[0, ndim)``; negative values count from the end."""
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        fail(op, f"{what} must be an int, got {type(axis).__name__}: {axis!r}", name)
    axis = int(axis)
    if not -ndim <= axis < ndim:
        fail(
            op,
            f"{what} {axis} is out of range for an input of rank {ndim}; "
            f"expected {-ndim} <= {what} < {ndim}",
            name,
        )
    return axis % ndim


def norm_axes(op: str, axis: Any, ndim: int, name: str | None = None) -> tuple[int, ...]:
    """An int, a list/tuple of ints or None (all axes) as a sorted tuple of distinct axes."""
    if axis is None:
        return tuple(range(ndim))
    items = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    axes = [norm_axis(op, a, ndim, name) for a in items]
    if len(set(axes)) != len(axes):
        fail(op, f"axis {axis!r} names the same dimension twice", name)
    return tuple(sorted(axes))


def int_list(
    op: str, value: Any, n: int, what: str, name: str | None = None, minimum: int = 1
) -> tuple[int, ...]:
    """An int or a sequence of 1 or ``n`` ints (OneFlow's ``_GetSequence``) as ``n`` ints;
    ``None`` is ``[1]`` there (``avg_pool2d(x, ksize, strides=None, ...)`` runs at stride 1),
    and a NumPy array is a sequence."""
    if value is None:
        value = [1]
    items = list(value) if isinstance(value, (list, tuple, np.ndarray)) else [value]
    if len(items) == 1:
        items = items * n
    if len(items) != n or not all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in items
    ):
        fail(op, f"{what} must be an int or a list of 1 or {n} ints, got {value!r}", name)
    if any(v < minimum for v in items):
        fail(op, f"every {what} value must be >= {minimum}, got {value!r}", name)
    return tuple(int(v) for v in items)


def shape_tuple(
    op: str, shape: Any, what: str = "shape", name: str | None = None, allow_minus_one: bool = False
) -> tuple[int, ...]:
    if not isinstance(shape, (list, tuple)):
        fail(op, f"{what} must be a list or tuple of ints, got {shape!r}", name)
    ok = all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in shape)
    if not ok or any(d < 0 and not (allow_minus_one and d == -1) for d in shape):
        fail(op, f"{what} must contain non-negative ints, got {tuple(shape)!r}", name)
    return tuple(int(d) for d in shape)


def is_constant(value: Any) -> bool:
    """True for the operands that become attributes: Python/NumPy scalars and arrays."""
    return isinstance(value, (bool, int, float, np.ndarray, np.generic)) or (
        isinstance(value, (list, tuple)) and not any(isinstance(v, Blob) for v in _flat(value))
    )


def _flat(value: Sequence[Any]):
    for v in value:
        if isinstance(v, (list, tuple)):
            yield from _flat(v)
        else:
            yield v


def as_constant(op: str, value: Any, like: _dtypes.DType, name: str | None = None) -> Any:
    """A constant operand ready for a lowering.

    Python scalars stay Python scalars (weakly typed: ``blob_f32 + 1.5`` stays float32), except
    floats meeting integer blobs, which become float32 (``int_blob * 0.5`` is float32). Arrays
    take the blob's dtype when both are floating or both are integers, so a float64 NumPy
    constant does not promote a float32 blob.
    """
    if isinstance(value, float) and like.np_dtype.kind in "biu":
        return np.float32(value)  # not float64 (x64 is on): flowjob's default float is float32
    if isinstance(value, (bool, int, float)):
        return value
    arr = np.asarray(value)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        fail(op, f"constant operand must be numeric, got {arr.dtype}: {value!r}", name)
    kind, target = arr.dtype.kind, like.np_dtype.kind
    if (kind == "f" and target == "f") or (kind in "iu" and target in "iuf"):
        arr = arr.astype(like.np_dtype)
    elif arr.dtype == np.float64:
        arr = arr.astype(np.float32)
    return arr


def const_shape(value: Any) -> tuple[int, ...]:
    return tuple(np.shape(value))


def broadcast_shape(op: str, shapes: Sequence[tuple[int, ...]], name: str | None) -> tuple:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        fail(
            op,
            "operand shapes "
            + ", ".join(str(tuple(s)) for s in shapes)
            + " cannot be broadcast together",
            name,
        )


def sum_dtype(dtype: Any) -> Any:
    """The dtype a sum of ``dtype`` values accumulates in: float32 for float16 and bfloat16
    (as OneFlow's and TensorFlow's kernels sum them; thousands of half-precision terms lose
    digits otherwise), ``dtype`` itself for the others."""
    if jnp.issubdtype(dtype, jnp.floating):
        return jnp.promote_types(dtype, jnp.float32)
    return dtype
