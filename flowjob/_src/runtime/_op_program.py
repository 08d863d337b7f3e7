"""One eager tensor op as one JAX function (OneFlow v0.4's ``oneflow.experimental`` API).

An experimental op (``flow.sum``, ``nn.Conv2d``'s forward...) is a small body of flowjob's
ops on blobs. ``op_program`` records that body once, on placeholder blobs of its inputs'
shapes and dtypes, into a throwaway one-device graph, and returns the graph as a pure function
of arrays that ``_interpret`` evaluates: the ops' own lowerings, the programs' own evaluation.
The caller jits it (and its ``jax.vjp``) once per shape; no second op library exists.

A body whose graph cannot be a pure function (a dynamic output whose size depends on the
values, a host kernel, a data-pipeline op) has no program: ``NotAProgram`` says so and the
caller runs it with ``run_eagerly`` instead.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import jax

from .. import _dtypes
from .. import typing as tp
from ..graph import Blob, JobGraph, JobType, OpKind, VariableStore, runs_host_kernel, tracing
from . import _config
from ._program import _interpret
from ._trace import ParamSpec, _make_inputs


class NotAProgram(Exception):
    """The body's graph is not a pure function of its inputs (see the module docstring)."""


@dataclasses.dataclass(frozen=True)
class OpProgram:
    """``fn(key, *arrays) -> tuple of arrays``; ``rng``: whether ``key`` is read (random ops);
    ``single``: whether the body returned one blob rather than a tuple."""

    fn: Callable[..., tuple]
    rng: bool
    single: bool
    outputs: tuple[jax.ShapeDtypeStruct, ...]


def op_program(
    name: str,
    body: Callable[..., Any],
    specs: Sequence[tuple[tuple[int, ...], Any]],
    attrs: dict[str, Any],
) -> OpProgram:
    """Records ``body(*blobs, **attrs)`` on placeholder blobs of ``specs`` ((shape, dtype)
    pairs) and returns it as an ``OpProgram``. Raises ``NotAProgram`` (see the module
    docstring); errors of the ops themselves (``OpError``...) propagate."""
    _config.start_jax()
    params = [
        ParamSpec(
            f"in_{i}",
            [tp.Numpy.Placeholder(tuple(shape), dtype=_dtypes.as_dtype(dtype), batch_axis=None)],
            False,
        )
        for i, (shape, dtype) in enumerate(specs)
    ]
    graph = JobGraph(name, JobType.PREDICT, _config.FunctionConfig())
    with tracing(graph, VariableStore()):
        blobs = _make_inputs(graph, params)
        out = body(*blobs, **attrs)
    single = isinstance(out, Blob)
    outputs = (out,) if single else tuple(out)
    for op in graph.ops:
        if op.kind is OpKind.DEVICE and (op.real_shape is not None or runs_host_kernel(op)):
            raise NotAProgram(f"{name}: op {op.name!r} ({op.op_type})")
        if op.kind not in (OpKind.DEVICE, OpKind.INPUT):
            raise NotAProgram(f"{name}: op {op.name!r} is a {op.kind.name.lower()} op")
    if any(not isinstance(b, Blob) or b.is_dynamic for b in outputs):
        raise NotAProgram(f"{name}: an output is not a fixed-shape blob")
    inputs = list(graph.inputs)
    rng = any(op.rng for op in graph.ops)

    def fn(key: Any, *arrays: Any) -> tuple:
        env = _interpret(graph, {}, {id(b): a for b, a in zip(inputs, arrays)}, {}, key)
        # A body may return one of its inputs as it is (a reshape to the same shape).
        return tuple(env[id(b)] for b in outputs)

    shapes = tuple(jax.ShapeDtypeStruct(b.shape, b.dtype.np_dtype) for b in outputs)
    return OpProgram(fn, rng, single, shapes)
