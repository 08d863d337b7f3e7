"""Ops that move or copy elements without computing on them: ``reshape``, ``flatten``,
``squeeze``, ``unsqueeze``, ``permute``, ``transpose``, ``expand``, ``repeat`` and
``broadcast_like``, as OneFlow v0.4's experimental API and ``Tensor`` methods spell them.
Each is a body of flowjob's shape ops (``ops.array_ops``) run by ``imperative.apply``, so
their gradients (a reshape back, a transpose back, a sum over the broadcast axes) come from
``jax.vjp`` of the same lowering."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import ops
from ..graph import Blob
from ..imperative import Tensor, apply


def _ints(who: str, what: str, values: Any) -> tuple[int, ...]:
    """``values`` (a list/tuple/Size of ints, or the ints of a ``*args`` call) as a tuple."""
    if len(values) == 1 and isinstance(values[0], (list, tuple)):
        values = values[0]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise TypeError(f"{who}: {what} must be ints, got {tuple(values)!r}")
    return tuple(values)


def _axis(who: str, what: str, value: Any, ndim: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{who}: {what} must be an int, got {value!r}")
    if not -ndim <= value < ndim:
        raise IndexError(f"{who}: {what}={value} is out of range [{-ndim}, {ndim})")
    return value % ndim


def _reshape_body(x: Blob, *, shape: tuple[int, ...]) -> Blob:
    return ops.array_ops.reshape(x, shape)


def reshape(x: Tensor, shape: Sequence[int] | None = None) -> Tensor:
    """``x`` with a new shape of the same element count; one entry may be ``-1``.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> x = flow.Tensor(np.arange(16, dtype=np.float32).reshape(4, 4))
        >>> flow.reshape(x, shape=[2, 2, 2, -1]).shape
        flow.Size([2, 2, 2, 2])
        >>> x.reshape(8, 2).shape
        flow.Size([8, 2])
    """
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"flow.reshape: shape must be a list or tuple of ints, got {shape!r}")
    return apply("reshape", _reshape_body, x, shape=_ints("flow.reshape", "shape", shape))


def _reshape_method(self: Tensor, *shape: Any, **kwargs: Any) -> Tensor:
    # ``x.reshape(shape=[...])`` as OneFlow v0.4, and PyTorch's ``x.reshape(2, 3)``
    if "shape" in kwargs:
        return reshape(self, **kwargs)
    return reshape(self, _ints("Tensor.reshape", "shape", shape))


def _flatten_body(x: Blob, *, start_dim: int, end_dim: int) -> Blob:
    return ops.array_ops.flatten(x, start_dim, end_dim)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:  # noqa: A002
    """Merges the axes ``start_dim .. end_dim`` (inclusive) into one.

    Examples:
        >>> import flowjob.experimental as flow
        >>> x = flow.Tensor(32, 1, 5, 5)
        >>> x.flatten(start_dim=1).shape
        flow.Size([32, 25])
        >>> flow.flatten(x).shape
        flow.Size([800])
    """
    ndim = max(input.ndim, 1)
    start = _axis("flow.flatten", "start_dim", start_dim, ndim)
    end = _axis("flow.flatten", "end_dim", end_dim, ndim)
    if start > end:
        raise ValueError(f"flow.flatten: start_dim {start_dim} comes after end_dim {end_dim}")
    return apply("flatten", _flatten_body, input, start_dim=start, end_dim=end)


def _squeeze_body(x: Blob, *, axes: tuple[int, ...] | None) -> Blob:
    return ops.array_ops.squeeze(x, axes)


def squeeze(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:  # noqa: A002
    """Removes the size-1 axes ``dim`` (an int or a list), or every size-1 axis when ``dim``
    is None. Removing every axis leaves shape ``(1,)``, as OneFlow.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> x = flow.Tensor(np.ones((1, 1, 1, 3), np.float32))
        >>> flow.squeeze(x, dim=[1, 2]).shape
        flow.Size([1, 3])
        >>> x.squeeze().shape
        flow.Size([3])
    """
    axes = None
    if dim is not None:
        items = [dim] if isinstance(dim, int) else list(dim)
        axes = tuple(sorted({_axis("flow.squeeze", "dim", d, input.ndim) for d in items}))
        bad = [a for a in axes if input.shape[a] != 1]
        if bad:
            raise ValueError(
                f"flow.squeeze: axis {bad[0]} of shape {tuple(input.shape)} has size "
                f"{input.shape[bad[0]]}, not 1"
            )
    return apply("squeeze", _squeeze_body, input, axes=axes)


def _unsqueeze_body(x: Blob, *, dim: int) -> Blob:
    return ops.array_ops.expand_dims(x, dim)


def unsqueeze(input: Tensor, dim: int) -> Tensor:  # noqa: A002
    """Inserts an axis of size 1 at ``dim`` (``-ndim-1 <= dim <= ndim``; a negative ``dim``
    counts from the end of the result).

    Examples:
        >>> import flowjob.experimental as flow
        >>> flow.Tensor(2, 3).unsqueeze(1).shape
        flow.Size([2, 1, 3])
        >>> flow.unsqueeze(flow.Tensor(2, 3), -1).shape
        flow.Size([2, 3, 1])
    """
    dim = _axis("flow.unsqueeze", "dim", dim, input.ndim + 1)
    return apply("unsqueeze", _unsqueeze_body, input, dim=dim)


def _transpose_body(x: Blob, *, perm: tuple[int, ...]) -> Blob:
    return ops.array_ops.transpose(x, perm)


def permute(tensor: Tensor, *dims: Any) -> Tensor:
    """``tensor`` with its axes reordered: axis ``i`` of the result is axis ``dims[i]``.

    Examples:
        >>> import flowjob.experimental as flow
        >>> flow.Tensor(2, 6, 5, 3).permute(1, 0, 2, 3).shape
        flow.Size([6, 2, 5, 3])
    """
    perm = _ints("Tensor.permute", "dims", dims)
    if len(perm) != tensor.ndim:
        raise ValueError(
            f"Tensor.permute: {len(perm)} dims {perm} for a tensor of {tensor.ndim} axes"
        )
    perm = tuple(_axis("Tensor.permute", "dim", d, tensor.ndim) for d in perm)
    if sorted(perm) != list(range(tensor.ndim)):
        raise ValueError(f"Tensor.permute: dims {tuple(dims)} repeat an axis")
    return apply("permute", _transpose_body, tensor, perm=perm)


def transpose(tensor: Tensor, dim0: int, dim1: int) -> Tensor:
    """``tensor`` with axes ``dim0`` and ``dim1`` swapped.

    Examples:
        >>> import flowjob.experimental as flow
        >>> flow.transpose(flow.Tensor(2, 6, 5, 3), 0, -1).shape
        flow.Size([3, 6, 5, 2])
    """
    a = _axis("flow.transpose", "dim0", dim0, tensor.ndim)
    b = _axis("flow.transpose", "dim1", dim1, tensor.ndim)
    perm = list(range(tensor.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return apply("transpose", _transpose_body, tensor, perm=tuple(perm))


def _expand_body(x: Blob, *, sizes: tuple[int, ...]) -> Blob:
    return ops.array_ops.expand(x, sizes)


def expand(x: Tensor, *sizes: Any) -> Tensor:
    """``x`` broadcast to ``sizes``: a size-1 axis takes any size, ``-1`` keeps an axis, and
    extra sizes add axes in front.

    Examples:
        >>> import flowjob.experimental as flow
        >>> flow.Tensor(1, 3, 1, 2).expand(2, 1, 3, 2, 2).shape
        flow.Size([2, 1, 3, 2, 2])
    """
    sizes = _ints("Tensor.expand", "sizes", sizes)
    if len(sizes) < x.ndim:
        raise ValueError(
            f"Tensor.expand: {len(sizes)} sizes {sizes} for a tensor of {x.ndim} axes; "
            "give at least one size per axis"
        )
    return apply("expand", _expand_body, x, sizes=sizes)


def _repeat_body(x: Blob, *, before: tuple, expanded: tuple, after: tuple) -> Blob:
    x = ops.array_ops.reshape(x, before)
    x = ops.array_ops.expand(x, expanded)
    return ops.array_ops.reshape(x, after)


def repeat(x: Tensor, sizes: Sequence[int]) -> Tensor:
    """``x`` tiled ``sizes[i]`` times along axis ``i`` (NumPy's ``tile``); extra leading
    sizes add axes. One reshape-expand-reshape program, as OneFlow v0.4 built it.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> x = flow.Tensor(np.array([[1.0, 2.0]], np.float32))
        >>> x.repeat(sizes=(2, 2)).tolist()
        [[1.0, 2.0, 1.0, 2.0], [1.0, 2.0, 1.0, 2.0]]
    """
    if isinstance(sizes, int):
        sizes = (sizes,)
    sizes = _ints("flow.repeat", "sizes", tuple(sizes))
    if len(sizes) < x.ndim or any(s <= 0 for s in sizes):
        raise ValueError(
            f"flow.repeat: sizes {sizes} must be positive, at least one per axis of "
            f"{tuple(x.shape)}"
        )
    lead = len(sizes) - x.ndim
    before, expanded, after = [], list(sizes[:lead]), list(sizes[:lead])
    for n, r in zip(x.shape, sizes[lead:]):
        if r > 1 and n > 1:  # a new axis of r copies in front of this one, merged after
            before += [1, n]
            expanded += [r, n]
        else:  # n == 1 broadcasts to r, r == 1 keeps n
            before.append(n)
            expanded.append(max(r, n))
        after.append(n * r)
    return apply(
        "repeat",
        _repeat_body,
        x,
        before=tuple(before),
        expanded=tuple(expanded),
        after=tuple(after),
    )


def _repeat_method(self: Tensor, *sizes: Any, **kwargs: Any) -> Tensor:
    # ``x.repeat(sizes=(...))`` as OneFlow v0.4, and ``x.repeat(2, 3)``
    if "sizes" in kwargs:
        return repeat(self, **kwargs)
    return repeat(self, _ints("Tensor.repeat", "sizes", sizes))


def _broadcast_like_body(x: Blob, like: Blob, *, axes: Any) -> Blob:
    return ops.array_ops.broadcast_like(x, like, axes)


def broadcast_like(
    x: Tensor, like_tensor: Tensor, broadcast_axes: Sequence[int] | None = None
) -> Tensor:
    """``x`` broadcast to ``like_tensor``'s shape along ``broadcast_axes`` (all by default);
    ``x`` has size 1 on those axes (or lacks them).

    Examples:
        >>> import flowjob.experimental as flow
        >>> flow.broadcast_like(flow.Tensor(3, 1, 1), flow.Tensor(3, 3, 3), (1, 2)).shape
        flow.Size([3, 3, 3])
    """
    axes = None if broadcast_axes is None else tuple(broadcast_axes)
    return apply("broadcast_like", _broadcast_like_body, x, like_tensor, axes=axes)


METHODS = {
    "reshape": _reshape_method,
    "flatten": flatten,
    "squeeze": squeeze,
    "unsqueeze": unsqueeze,
    "permute": permute,
    "transpose": transpose,
    "expand": expand,
    "repeat": _repeat_method,
}
