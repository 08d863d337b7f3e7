"""Classification losses on tensors: ``nll_loss`` and ``cross_entropy`` (OneFlow v0.4's
``nn.NLLLoss`` and ``nn.CrossEntropyLoss``) for inputs ``(N, C)`` or ``(N, C, d1, ...)`` and
integer targets ``(N)`` or ``(N, d1, ...)``.

One body each: the class axis is picked with a one-hot of the target (``ops.one_hot`` along
axis 1), so inputs of any rank need no transpose. ``ignore_index`` (an extension over v0.4,
which rejected it) drops those targets from the loss and from the mean's count, as PyTorch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from ..graph import Blob
from ..imperative import apply

_REDUCTIONS = ("none", "mean", "sum")


def _loss_body(
    x: Blob, target: Blob, *, log_softmax: bool, ignore_index: Any, reduction: str
) -> Blob:
    logp = ops.nn.log_softmax(x, axis=1) if log_softmax else x
    onehot = ops.array_ops.one_hot(target, depth=x.shape[1], axis=1, dtype=x.dtype)
    losses = ops.math.negative(ops.math.reduce_sum(ops.math.multiply(logp, onehot), axis=1))
    if ignore_index is None:
        if reduction == "mean":
            return ops.math.reduce_mean(losses)
        return ops.math.reduce_sum(losses) if reduction == "sum" else losses
    keep = ops.array_ops.cast(ops.math.not_equal(target, ignore_index), x.dtype)
    losses = ops.math.multiply(losses, keep)
    if reduction == "mean":
        return ops.math.divide(ops.math.reduce_sum(losses), ops.math.reduce_sum(keep))
    return ops.math.reduce_sum(losses) if reduction == "sum" else losses


def _loss(
    who: str, log_softmax: bool, x: Any, target: Any, ignore_index: Any, reduction: Any
) -> Any:
    reduction = "none" if reduction is None else reduction
    if reduction not in _REDUCTIONS:
        raise ValueError(
            f"{who}: reduction must be one of {_REDUCTIONS} or None, got {reduction!r}"
        )
    if x.ndim < 2 or tuple(target.shape) != (x.shape[0], *x.shape[2:]):
        raise ValueError(
            f"{who}: input (N, C, ...) and target (N, ...) expected, got input "
            f"{tuple(x.shape)} and target {tuple(target.shape)}"
        )
    if not np.issubdtype(target.dtype.np_dtype, np.integer):
        raise TypeError(f"{who}: target must hold integer class indices, got {target.dtype.name}")
    if ignore_index is not None:
        ignore_index = int(ignore_index)
    return apply(
        who,
        _loss_body,
        x,
        target,
        log_softmax=log_softmax,
        ignore_index=ignore_index,
        reduction=reduction,
    )


def nll_loss(
    x: Any, target: Any, ignore_index: int | None = None, reduction: str | None = "mean"
) -> Any:
    """``-x[n, target[n], ...]`` (``x`` holds log-probabilities over axis 1), reduced by
    ``"mean"``, ``"sum"`` or ``"none"`` (also ``None``).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> from flowjob._src.tensor_ops import nll_loss
        >>> x = flow.Tensor([[-1.0, -2.0], [-3.0, -4.0]])
        >>> t = flow.tensor([1, 0])
        >>> assert np.allclose(nll_loss(x, t).numpy(), 2.5)
    """
    return _loss("nll_loss", False, x, target, ignore_index, reduction)


def cross_entropy(
    x: Any, target: Any, ignore_index: int | None = None, reduction: str | None = "mean"
) -> Any:
    """``nll_loss(log_softmax(x, dim=1), target)``: ``x`` holds unnormalized scores."""
    return _loss("cross_entropy", True, x, target, ignore_index, reduction)
