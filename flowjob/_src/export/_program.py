"""A predict job as a pure function of its variables and inputs, for exporting.

The job is traced by its session as for a call; the recorded ops are then evaluated in order
with their lowerings (the same implementation the job runs), so the exported program computes
exactly what the job computes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import FlowJobError, describe_frame
from ..graph import Blob, JobGraph, OpNode
from ..runtime import JobFunction, default_session


class ExportError(FlowJobError, ValueError):
    """A job, signature or saved model cannot be exported or loaded as asked."""


def describe_op(op: OpNode, job: str) -> str:
    """``op 'name' (type) in job 'job' at File ...``: how export errors name an op."""
    return f"op {op.name!r} ({op.op_type}) in job {job!r}\n  at {describe_frame(op.user_frame)}"


@dataclass(frozen=True)
class TensorSpec:
    """One named input or output of a signature."""

    name: str
    lbn: str
    shape: tuple[int, ...]
    dtype: str  # NumPy dtype name

    def to_json(self) -> dict[str, Any]:
        return {"lbn": self.lbn, "shape": list(self.shape), "dtype": self.dtype}

    @classmethod
    def from_json(cls, name: str, data: Mapping[str, Any]) -> TensorSpec:
        return cls(name, str(data["lbn"]), tuple(int(d) for d in data["shape"]), str(data["dtype"]))


@dataclass
class JobProgram:
    """The traced predict job plus the blobs a signature feeds and fetches."""

    job_name: str
    graph: JobGraph
    inputs: list[tuple[TensorSpec, Blob]]
    outputs: list[tuple[TensorSpec, Blob]]
    variable_names: list[str]  # variables the outputs depend on, sorted

    def variable_values(self) -> dict[str, np.ndarray]:
        """The session's current values of the program's variables (host copies)."""
        values = default_session().variable_arrays()
        return {n: values[n] for n in self.variable_names}

    def forward(
        self, variables: Sequence[Any], inputs: Sequence[Any], batch_free_reshapes: bool = False
    ) -> tuple[Any, ...]:
        """Evaluates the ops the outputs need. ``variables`` follow ``variable_names``.

        ``batch_free_reshapes``: reshapes infer their leading dimension (``-1``) instead of
        using the traced batch size, so the program also runs at other batch sizes.
        """
        env: dict[int, Any] = {}
        for (_, blob), value in zip(self.inputs, inputs):
            env[id(blob)] = value
        for name, value in zip(self.variable_names, variables):
            env[id(self.graph.variables[name])] = value
        for op in needed_ops(self.graph, [b for _, b in self.outputs], [b for _, b in self.inputs]):
            if op.kind == "variable":
                continue
            attrs = dict(op.attrs)
            if batch_free_reshapes and op.op_type in ("reshape", "flatten") and attrs.get("shape"):
                attrs["shape"] = (-1, *tuple(attrs["shape"])[1:])
            out = op.lowering(*(env[id(b)] for b in op.inputs), **attrs)
            for blob, value in zip(op.outputs, out if isinstance(out, tuple) else (out,)):
                env[id(blob)] = value
        return tuple(env[id(b)] for _, b in self.outputs)


def needed_ops(graph: JobGraph, outputs: Sequence[Blob], fed: Sequence[Blob]) -> list[OpNode]:
    """The ops (in job order) that ``outputs`` depend on, stopping at the ``fed`` blobs.

    Raises ``ExportError`` naming the op when one of them cannot be part of an exported
    program (a job argument not fed, the data pipeline, a random op).
    """
    fed_ids = {id(b) for b in fed}
    seen: set[int] = set()
    stack = [b for b in outputs if id(b) not in fed_ids]
    while stack:
        op = stack.pop().op
        if id(op) in seen:
            continue
        seen.add(id(op))
        stack.extend(b for b in op.inputs if id(b) not in fed_ids)
    ops = [op for op in graph.ops if id(op) in seen]
    for op in ops:
        why = None
        if op.kind == "input":
            why = "is a job argument that the signature does not feed (add it as an Input)"
        elif op.kind == "feed":
            why = "belongs to the host data pipeline, which an exported program cannot run"
        elif op.kind == "device" and op.rng:
            why = "draws random numbers; an exported inference program must be deterministic"
        elif op.kind == "device" and op.lowering is None:
            why = "has no lowering"
        if why is not None:
            raise ExportError(f"cannot export {describe_op(op, graph.name)}: it {why}")
    return ops


def trace_job(job: Any) -> tuple[JobGraph, list[Blob]]:
    """The job's traced graph and returned blobs (traced once by its session, as a call)."""
    if not isinstance(job, JobFunction):
        raise ExportError(
            f"expected a @flow.global_function job, got {type(job).__name__}: {job!r}"
        )
    if job.job_type != "predict":
        raise ExportError(
            f"job {job.__name__!r} is a {job.job_type} job: export a "
            '@flow.global_function(type="predict") job (the forward pass)'
        )
    traced = default_session().compiled_job(job).traced
    return traced.graph, list(traced.returns)


def _spec(name: str, blob: Blob) -> TensorSpec:
    return TensorSpec(name, blob.lbn, tuple(blob.shape), blob.dtype.np_dtype.name)


def build_program(
    job: Any, inputs: Mapping[str, str] | None = None, outputs: Mapping[str, str] | None = None
) -> JobProgram:
    """``inputs``/``outputs``: signature name -> logical blob name (``op/out``). Left out:
    the job's arguments, named as its parameters, and its returned blobs, named by their op.
    """
    graph, returns = trace_job(job)
    by_lbn = {b.lbn: b for op in graph.ops for b in op.outputs}

    def lookup(kind: str, name: str, lbn: str) -> Blob:
        blob = by_lbn.get(lbn)
        if blob is None:
            known = (
                ", ".join(sorted(b.lbn for b in graph.inputs))
                if kind == "input"
                else ", ".join(sorted(b.lbn for b in returns))
            )
            raise ExportError(
                f"signature {kind} {name!r} of job {graph.name!r}: no blob "
                f"{lbn!r} in the job (its {kind}s: {known or 'none'})"
            )
        if blob.is_dynamic:
            raise ExportError(
                f"signature {kind} {name!r} of job {graph.name!r}: {lbn} is a "
                "dynamic (ListNumpy) blob; export jobs with tp.Numpy placeholders"
            )
        return blob

    if inputs:
        in_pairs = [(n, lookup("input", n, lbn)) for n, lbn in inputs.items()]
    else:
        in_pairs = [
            (b.op_name, lookup("input", b.op_name, b.lbn))
            for b in graph.inputs
            if b.op.kind == "input"
        ]
    if outputs:
        out_pairs = [(n, lookup("output", n, lbn)) for n, lbn in outputs.items()]
    else:
        if not returns:
            raise ExportError(
                f"job {graph.name!r} returns nothing: return the blobs to serve, "
                "or name them with a signature's Output(name, lbn)"
            )
        names: dict[str, int] = {}
        out_pairs = []
        for blob in returns:
            count = names.get(blob.op_name, 0)
            names[blob.op_name] = count + 1
            out_pairs.append(
                (
                    blob.op_name if not count else f"{blob.op_name}_{count}",
                    lookup("output", blob.op_name, blob.lbn),
                )
            )
    fed = [b for _, b in in_pairs]
    ops = needed_ops(graph, [b for _, b in out_pairs], fed)
    variables = sorted(op.name for op in ops if op.kind == "variable")
    return JobProgram(
        graph.name,
        graph,
        [(_spec(n, b), b) for n, b in in_pairs],
        [(_spec(n, b), b) for n, b in out_pairs],
        variables,
    )
