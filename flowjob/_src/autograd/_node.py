"""``Node``: one recorded op of the autograd graph."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


class Node:
    """An op's backward: ``vjp(cotangents)`` maps one cotangent per output (an array, or
    ``None`` for an output no gradient reached) to one gradient per input (``None`` for
    inputs that need none).

    ``inputs`` are the op's tensor inputs. The engine reads three things of a tensor:
    ``requires_grad``, ``grad_fn`` (the ``Node`` that made it, ``None`` for a leaf) with
    ``output_index`` (which of that node's outputs it is), and ``accumulate_grad(array)``,
    called on leaves and on tensors that ``retain_grad()``.
    ``outputs`` holds each output's (shape, dtype), to make zero cotangents.
    """

    __slots__ = ("name", "vjp", "inputs", "outputs", "retained", "__weakref__")

    def __init__(
        self,
        name: str,
        vjp: Callable[[list[Any]], Sequence[Any]],
        inputs: Sequence[Any],
        outputs: Sequence[tuple[tuple[int, ...], Any]],
    ):
        self.name = name
        self.vjp: Callable[[list[Any]], Sequence[Any]] | None = vjp
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        # Output index -> tensors that asked to keep their gradient (``retain_grad``).
        self.retained: dict[int, list[Any]] = {}

    def __repr__(self) -> str:
        return f"<{self.name}Backward>"
