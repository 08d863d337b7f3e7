"""Reductions on tensors: ``sum``, ``mean``, ``var``, ``std`` over ``dim`` (an int, a list of
ints, or ``None`` for every axis) and ``argmax``, as OneFlow v0.4's experimental API spells
them. Reducing every axis gives shape ``(1,)``, as OneFlow's tensors had no rank 0.

OneFlow v0.4 named the keep-axis flag ``keepdims`` in ``sum`` and ``keepdim`` elsewhere;
each function here takes both spellings."""

from __future__ import annotations

from typing import Any

from .. import ops
from ..graph import Blob
from ..imperative import apply
from ._checks import require_tensor


def _axes(dim: Any) -> Any:
    if dim is None:
        return None
    return tuple(int(d) for d in dim) if isinstance(dim, (list, tuple)) else int(dim)


def _keep(flag: Any, alias: Any) -> bool:
    """The keep-axis flag: the other spelling (``alias``, keyword only) wins when given."""
    return bool(flag if alias is None else alias)


_REDUCE = {
    "sum": ops.math.reduce_sum,
    "mean": ops.math.reduce_mean,
    "var": ops.math.reduce_variance,
    "std": ops.math.reduce_std,
}


def _reduce_body(x: Blob, *, kind: str, dim: Any, keepdim: bool) -> Blob:
    return _REDUCE[kind](x, axis=dim, keepdims=keepdim)


def _reduce(kind: str, arg: str, x: Any, dim: Any, keepdim: bool) -> Any:
    x = require_tensor(kind, arg, x)
    return apply(kind, _reduce_body, x, kind=kind, dim=_axes(dim), keepdim=keepdim)


def sum(  # noqa: A001 - OneFlow's name
    input: Any,  # noqa: A002 - OneFlow's name
    dim: Any = None,
    keepdims: bool = False,
    *,
    keepdim: bool | None = None,
) -> Any:
    """The sum over ``dim`` (every axis when ``None``; ``input`` itself for an empty list).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> x = flow.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
        >>> assert np.allclose(flow.sum(x, dim=1).numpy(), [3.0, 12.0])
        >>> assert x.sum(dim=(0, 1), keepdim=True).shape == (1, 1)
    """
    return _reduce("sum", "input", input, dim, _keep(keepdims, keepdim))


def mean(
    input_tensor: Any, dim: Any = None, keepdim: bool = False, *, keepdims: bool | None = None
) -> Any:
    """The mean over ``dim`` (every axis when ``None``).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> x = flow.Tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        >>> assert np.allclose(flow.mean(x).numpy(), [3.5])
        >>> assert np.allclose(x.mean(dim=-1).numpy(), [2.0, 5.0])
    """
    return _reduce("mean", "input_tensor", input_tensor, dim, _keep(keepdim, keepdims))


def var(
    input: Any,  # noqa: A002 - OneFlow's name
    dim: Any = None,
    keepdim: bool = False,
    *,
    keepdims: bool | None = None,
) -> Any:
    """The variance over ``dim``, dividing by the element count (NumPy's ``np.var``, as
    OneFlow v0.4 computed it); zeros of ``input``'s shape for an empty ``dim`` list.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> x = flow.Tensor([[1.0, 3.0], [2.0, 2.0]])
        >>> assert np.allclose(flow.var(x, 1).numpy(), [1.0, 0.0])
    """
    return _reduce("var", "input", input, dim, _keep(keepdim, keepdims))


def std(
    tensor: Any,
    dim: Any = None,
    unbiased: bool = True,
    keepdim: bool = False,
    *,
    keepdims: bool | None = None,
) -> Any:
    """The standard deviation over ``dim``, dividing by the element count (NumPy's
    ``np.std``). OneFlow v0.4 computed this population value whatever ``unbiased`` said
    (its Bessel correction was never applied), so ``unbiased`` changes nothing here either.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> x = flow.Tensor([[1.0, 3.0], [2.0, 2.0]])
        >>> assert np.allclose(x.std(dim=1).numpy(), [1.0, 0.0])
    """
    if not isinstance(unbiased, bool):
        raise TypeError(f"flow.std: unbiased must be a bool, got {unbiased!r}")
    return _reduce("std", "tensor", tensor, dim, _keep(keepdim, keepdims))


def _argmax_body(x: Blob, *, dim: int | None, keepdim: bool) -> Blob:
    if dim is None:  # over the flattened values, as OneFlow v0.4 did
        x = ops.array_ops.reshape(x, (-1,))
        dim = 0
    out = ops.math.argmax(x, axis=dim)
    if keepdim:
        axis = dim if dim >= 0 else dim + x.ndim
        out = ops.array_ops.expand_dims(out, axis if x.ndim > 1 else -1)
    return out


def argmax(input: Any, dim: int | None = None, keepdim: bool = False) -> Any:  # noqa: A002
    """The index (int32) of the largest value along ``dim`` (of the flattened values when
    ``None``); the first one on ties. A vector's result has shape ``(1,)``, as OneFlow's.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> x = flow.Tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
        >>> assert flow.argmax(x, dim=1).numpy().tolist() == [1, 0]
        >>> assert x.argmax().numpy().tolist() == [3]
    """
    require_tensor("argmax", "input", input)
    if dim is not None and (isinstance(dim, bool) or not isinstance(dim, int)):
        raise TypeError(f"flow.argmax: dim must be an int or None, got {dim!r}")
    return apply("argmax", _argmax_body, input, dim=dim, keepdim=bool(keepdim))


METHODS = {"sum": sum, "mean": mean, "var": var, "std": std, "argmax": argmax}
