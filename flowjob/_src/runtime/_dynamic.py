"""Real shapes of a job's dynamic blobs in one call (the ops' rules: graph/_real_shape.py).

Dynamic arguments reach the compiled program zero-padded to their declared shape, so one
program serves every argument size. Per call the host works out the real shape of every
dynamic blob from the arguments' shapes (once per distinct set of shapes), hands the program
the real shapes its masked lowerings read as one int32 vector, and cuts fetched values to
their real shape.

Blobs whose real shape depends on data (made by ops with a ``device`` rule, and the blobs
computed from them) get it in the program instead: ``track`` works it out after each such op
(the ops' host rules run as host callbacks on the traced shapes), masked lowerings read it
from the same ``real`` dict, and the program returns the fetched ones beside their values.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import JobArgumentError, describe_frame
from ..graph import JobGraph, call_kernel

_CACHE_SIZE = 256


class RealShapes:
    """The real shape of each dynamic blob of one call (by ``id`` of the blob), and the int32
    vector of those the program reads."""

    __slots__ = ("shapes", "vector")

    def __init__(self, shapes: dict[int, tuple[int, ...]], vector: np.ndarray):
        self.shapes = shapes
        self.vector = vector


class RealShapePlan:
    """What a job with dynamic blobs on the device works out per call."""

    def __init__(self, graph: JobGraph):
        self.graph = graph
        self.args = [(i, b) for i, b in enumerate(graph.inputs) if b.is_dynamic]
        self.ops = [op for op in graph.ops if op.real_shape is not None]
        # Data-dependent real shapes: the ops that work them out in the program, their blobs.
        self.computed: set[int] = set()
        self.tracked: set[int] = set()
        for op in self.ops:
            if op.real_shape.device is not None or any(id(b) in self.computed for b in op.inputs):
                self.tracked.add(id(op))
                self.computed.update(id(b) for b in op.outputs)
        # A tracked op without a device rule checks its real shapes on the host, in the
        # program (``_host_rule``): the step can fail there after it started.
        self.host_rules = any(
            op.real_shape.device is None for op in self.ops if id(op) in self.tracked
        )
        # Real shapes the program reads: inputs of masked lowerings and of tracked ops, and
        # dynamic losses.
        read = [
            b
            for op in self.ops
            if op.real_shape.masked or id(op) in self.tracked
            for b in op.inputs
            if b.is_dynamic
        ]
        read += [b for b in graph.losses if b.is_dynamic]
        self.offsets: dict[int, tuple[int, int]] = {}
        size = 0
        for blob in read:
            if id(blob) not in self.offsets and id(blob) not in self.computed:
                self.offsets[id(blob)] = (size, blob.ndim)
                size += blob.ndim
        self.size = size
        self._cache: dict[tuple, RealShapes] = {}

    def evaluate(self, host_args: list[Any]) -> RealShapes:
        key = tuple(host_args[i][0].shape for i, _ in self.args)
        found = self._cache.get(key)
        if found is not None:
            return found
        shapes = {id(b): s for (_, b), s in zip(self.args, key)}
        for op in self.ops:
            if id(op) in self.tracked:
                try:
                    infer_real_shapes(self.graph.name, op, shapes)
                except JobArgumentError:  # upper bounds only: the program checks the real ones
                    shapes.update((id(b), b.shape) for b in op.outputs)
                continue
            infer_real_shapes(self.graph.name, op, shapes)
        vector = np.zeros((self.size,), np.int32)
        for bid, (offset, n) in self.offsets.items():
            vector[offset : offset + n] = shapes[bid]
        found = RealShapes(shapes, vector)
        if len(self._cache) < _CACHE_SIZE:
            self._cache[key] = found
        return found

    def unpack(self, vector: Any) -> dict[int, Any]:
        """In the program: the real shape arrays of the blobs it reads, from the vector."""
        return {bid: vector[o : o + n] for bid, (o, n) in self.offsets.items()}

    def track(self, op: Any, args: list[Any], real: dict[int, Any]) -> None:
        """In the program, after ``op`` (one of ``tracked``): its outputs' real shapes into
        ``real``, from its input values (a ``device`` rule) or its inputs' real shapes."""
        ins = tuple(jax.lax.stop_gradient(real_of(real, b)) for b in op.inputs)
        if op.real_shape.device is not None:
            out = op.real_shape.device(*args, real=ins, **op.attrs)
            outs = out if isinstance(out, tuple) else (out,) * len(op.outputs)
        else:
            outs = _host_rule(self.graph.name, op, ins)
        for blob, shape in zip(op.outputs, outs):
            bound = jnp.asarray(blob.shape, jnp.int32)
            real[id(blob)] = jnp.clip(jnp.asarray(shape).astype(jnp.int32), 0, bound)


def _host_rule(job: str, op: Any, ins: tuple[Any, ...]) -> tuple[Any, ...]:
    """``op``'s host rule on real shapes known only in the program (a host callback)."""
    padded = [b.shape if b.is_dynamic else None for b in op.inputs]

    def rule(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
        shapes = [tuple(int(v) for v in a) for a in arrays]
        try:
            out = op.real_shape.rule(shapes, padded, **op.attrs)
        except ValueError as exc:
            raise JobArgumentError(
                f"job {job!r}, op {op.name!r} ({op.op_type}): the real shapes of its inputs "
                f"{shapes} do not fit: {exc}\n  op defined at {describe_frame(op.user_frame)}"
            ) from None
        outs = [out] * len(op.outputs) if not out or isinstance(out[0], int) else out
        return tuple(np.asarray(o, np.int32).reshape(b.ndim) for o, b in zip(outs, op.outputs))

    specs = tuple(jax.ShapeDtypeStruct((b.ndim,), np.int32) for b in op.outputs)
    return jax.pure_callback(lambda *arrays: call_kernel(None, "", rule, *arrays), specs, *ins)


def infer_real_shapes(job_name: str, op: Any, shapes: dict[int, tuple[int, ...]]) -> None:
    """Adds the real shapes of ``op``'s outputs to ``shapes`` (id(blob) -> real shape; a
    blob not in it is static) by the op's rule; eager calls use it op by op."""
    ins = [shapes.get(id(b), b.shape) for b in op.inputs]
    padded = [b.shape if b.is_dynamic else None for b in op.inputs]
    try:
        out = op.real_shape.rule(ins, padded, **op.attrs)
    except ValueError as exc:
        shown = ", ".join(f"{b.lbn}: {s}" for b, s in zip(op.inputs, ins))
        raise JobArgumentError(
            f"job {job_name!r}, op {op.name!r} ({op.op_type}): the real shapes "
            f"of its inputs do not fit: {exc}\n  real input shapes: {shown}\n  op "
            f"defined at {describe_frame(op.user_frame)}"
        ) from None
    outs = [out] * len(op.outputs) if not out or isinstance(out[0], int) else out
    for blob, real in zip(op.outputs, outs):
        # A real size never exceeds the padded one the program holds.
        shapes[id(blob)] = tuple(min(int(r), m) for r, m in zip(real, blob.shape))


def real_of(real: dict[int, Any] | None, blob: Any) -> Any:
    """The real shape of ``blob`` in the program (a static blob's is its shape)."""
    if real is not None and id(blob) in real:
        return real[id(blob)]
    return jnp.asarray(blob.shape, jnp.int32)
