"""``nn.Flatten``: the layer form of ``flow.flatten`` (for ``nn.Sequential``)."""

from __future__ import annotations

from ..imperative import Module, Tensor
from ..tensor_ops import flatten


class Flatten(Module):
    """Merges the axes ``start_dim .. end_dim`` (inclusive) into one; by default every axis
    after the first (the batch).

    Examples:
        >>> import flowjob.experimental as flow
        >>> m = flow.nn.Flatten()
        >>> m(flow.Tensor(32, 1, 5, 5)).shape
        flow.Size([32, 25])
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - OneFlow's name
        return flatten(input, self.start_dim, self.end_dim)

    def __repr__(self) -> str:
        return f"Flatten(start_dim={self.start_dim}, end_dim={self.end_dim})"
