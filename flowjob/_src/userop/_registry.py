"""The table of op types the builders know: argument names, attributes and how each is built."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Sequence

from ..errors import OpError
from ..graph import Blob


class UnknownOpTypeError(OpError):
    """A builder named an op type that flowjob has no lowering for."""


@dataclasses.dataclass(frozen=True)
class OpCall:
    """What one built op receives: its inputs and attributes by OneFlow argument name."""

    op_type: str
    name: str
    inputs: dict[str, list[Blob]]
    attrs: dict[str, Any]
    output_counts: dict[str, int]

    def input(self, arg: str) -> Blob:
        """The single blob bound to input ``arg``."""
        return self.inputs[arg][0]


# ``build(call)`` returns {output arg: [blobs]} (a bare Blob for the op's only output).
Build = Callable[[OpCall], "dict[str, list[Blob]] | Blob"]


@dataclasses.dataclass(frozen=True)
class OpSpec:
    """One registered op type, with OneFlow's argument names."""

    op_type: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    build: Build
    attrs: dict[str, Any] = dataclasses.field(default_factory=dict)  # name -> default
    optional_inputs: tuple[str, ...] = ()


_REGISTRY: dict[str, OpSpec] = {}


def register(spec: OpSpec, *, replace: bool = False) -> OpSpec:
    """Adds ``spec`` to the table (``replace`` lets a user re-register their own op type)."""
    if spec.op_type in _REGISTRY and not replace:
        raise OpError(f"op type {spec.op_type!r} is already registered")
    _REGISTRY[spec.op_type] = spec
    return spec


def define(
    op_type: str,
    inputs: Sequence[str],
    outputs: Sequence[str],
    build: Build,
    *,
    attrs: dict[str, Any] | None = None,
    optional: Sequence[str] = (),
) -> None:
    """Shorthand used by the built-in tables."""
    register(
        OpSpec(op_type, tuple(inputs), tuple(outputs), build, dict(attrs or {}), tuple(optional))
    )


def lookup(op_type: str) -> OpSpec:
    """The spec of ``op_type``; an unknown name raises listing the known ones."""
    try:
        return _REGISTRY[op_type]
    except KeyError:
        raise UnknownOpTypeError(
            f"op type {op_type!r} has no flowjob lowering; the op types user_op_builder knows "
            f"are: {', '.join(known_op_types())}. Register your own with "
            "flow.register_python_op (README: Migrating from OneFlow, user ops)"
        ) from None


def known_op_types() -> list[str]:
    """Every registered op type name, sorted."""
    return sorted(_REGISTRY)
