"""``matmul`` and the ``@`` operator: flowjob's matmul op, whose leading (batch) axes
broadcast. OneFlow v0.4 dispatched to ``matmul`` (two matrices), ``batch_matmul`` (equal
ranks) and ``broadcast_matmul`` (a batch times one matrix); all three are this one op."""

from __future__ import annotations

from typing import Any

from .. import ops
from ..graph import Blob
from ..imperative import apply
from ._checks import require_tensor


def _matmul_body(a: Blob, b: Blob) -> Blob:
    return ops.math.matmul(a, b)


def matmul(a: Any, b: Any) -> Any:
    """The matrix product of the last two axes of ``a`` and ``b`` (each of rank >= 2),
    batched over the leading axes, which broadcast.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> a = flow.Tensor(np.ones((3, 2, 4)))
        >>> b = flow.Tensor(np.ones((4, 5)))
        >>> assert flow.matmul(a, b).shape == (3, 2, 5)
        >>> assert np.allclose((b.sum(dim=1, keepdim=True) @ flow.Tensor([[1.0]])).numpy(), 5)
    """
    require_tensor("matmul", "a", a)
    require_tensor("matmul", "b", b)
    for what, t in (("a", a), ("b", b)):
        if len(t.shape) < 2:
            raise ValueError(
                f"flow.matmul: {what} must have at least 2 dimensions, got shape {tuple(t.shape)}"
            )
    return apply("matmul", _matmul_body, a, b)


OPERATORS = {"__matmul__": matmul}
METHODS = {"matmul": matmul}
