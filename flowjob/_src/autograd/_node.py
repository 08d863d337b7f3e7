"""``Node``: one recorded op of the autograd graph."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple


class Edge(NamedTuple):
    """Where an op input's gradient goes: the ``node`` that made the input and which of its
    outputs it was (``index``), or, for a leaf, the ``leaf`` tensor itself.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> w = flow.Tensor(np.ones(2, np.float32), requires_grad=True)
        >>> (edge,) = (w * 2.0).grad_fn.edges[:1]
        >>> edge.node is None and edge.leaf is w
        True
    """

    node: Node | None
    index: int
    leaf: Any


class Node:
    """An op's backward: ``vjp(cotangents)`` maps one cotangent per output (an array, or
    ``None`` for an output no gradient reached) to one gradient per input (``None`` for
    inputs that need none).

    ``inputs`` are the op's tensor inputs, read once here: a tensor's ``requires_grad``,
    ``grad_fn`` (the ``Node`` that made it, ``None`` for a leaf) and ``output_index`` (which
    of that node's outputs it is) make its ``Edge`` (``None`` for an input that needs no
    gradient); the engine later calls ``accumulate_grad(array)`` on leaves and on tensors
    that ``retain_grad()``. ``outputs`` holds each output's (shape, dtype), to make zero
    cotangents.

    The node keeps the edges, not the input tensors: an intermediate tensor's values stay
    alive only while the program or the op's saved values (``vjp``'s residuals) hold them,
    as in PyTorch's graph. A graph still referenced after ``backward`` (the last step's
    loss, until the next step rebinds it) then holds no activations, only the leaves.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> w = flow.Tensor(np.ones(2, np.float32), requires_grad=True)
        >>> y = (w * 2.0).sum()
        >>> [type(e.node).__name__ if e.node else e.leaf is w for e in y.grad_fn.edges]
        ['Node']
    """

    __slots__ = ("name", "vjp", "edges", "outputs", "retained", "__weakref__")

    def __init__(
        self,
        name: str,
        vjp: Callable[[list[Any]], Sequence[Any]],
        inputs: Sequence[Any],
        outputs: Sequence[tuple[tuple[int, ...], Any]],
    ):
        self.name = name
        self.vjp: Callable[[list[Any]], Sequence[Any]] | None = vjp
        self.edges: list[Edge | None] = [_edge(t) for t in inputs]
        self.outputs = list(outputs)
        # Output index -> tensors that asked to keep their gradient (``retain_grad``).
        self.retained: dict[int, list[Any]] = {}

    def __repr__(self) -> str:
        return f"<{self.name}Backward>"


def _edge(t: Any) -> Edge | None:
    if t is None or not t.requires_grad:
        return None
    fn = t.grad_fn
    return Edge(fn, t.output_index, None) if fn is not None else Edge(None, 0, t)
