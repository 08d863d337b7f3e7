"""``nn.CrossEntropyLoss`` and ``nn.NLLLoss`` of OneFlow v0.4: ``(N, C)`` or
``(N, C, d1, ...)`` inputs, integer targets; ``reduction`` ``"mean"``, ``"sum"``, ``"none"``
(or ``None``). ``weight`` is rejected as v0.4 did; ``ignore_index`` (which v0.4 rejected) is
served, with PyTorch's meaning."""

from __future__ import annotations

from typing import Any

from .. import tensor_ops as F
from ..imperative import Module


class _Loss(Module):
    def __init__(
        self, weight: Any = None, ignore_index: int | None = None, reduction: Any = "mean"
    ):
        super().__init__()
        if weight is not None:
            raise ValueError(f"{type(self).__name__}: argument weight is not supported yet")
        if reduction not in ("sum", "none", "mean", None):
            raise ValueError(
                f"{type(self).__name__}: reduction must be 'sum', 'mean', 'none' or None, "
                f"got {reduction!r}"
            )
        self.ignore_index = ignore_index
        self.reduction = reduction

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}"


class CrossEntropyLoss(_Loss):
    """``-log(softmax(input, dim=1)[target])`` per element, then reduced.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> loss = flow.nn.CrossEntropyLoss()(flow.Tensor([[0.0, 0.0]]), flow.tensor([1]))
        >>> assert np.allclose(loss.numpy(), np.log(2))
    """

    def forward(self, input: Any, target: Any) -> Any:  # noqa: A002
        return F.cross_entropy(input, target, self.ignore_index, self.reduction)


class NLLLoss(_Loss):
    """``-input[target]`` along axis 1 (``input`` holds log-probabilities), then reduced."""

    def forward(self, input: Any, target: Any) -> Any:  # noqa: A002
        return F.nll_loss(input, target, self.ignore_index, self.reduction)
