"""Tracing a job function once: placeholders from annotations, body run, return checks."""

from __future__ import annotations

import inspect
import typing
from dataclasses import dataclass
from typing import Any

import jax

from .. import typing as tp
from ..errors import JobDefinitionError
from ..graph import (
    Blob,
    JobGraph,
    OpKind,
    VariableStore,
    View,
    host_only_error,
    is_tensor_list,
    tracing,
)
from ._sharding import mirrored_pieces

_RETURN_HELP = (
    "allowed return annotations: None, tp.Numpy, tp.ListNumpy, tp.ListListNumpy, "
    "Tuple/List/Dict of them, tp.Callback[T], tp.Bundle[tp.Numpy | tp.ListNumpy]"
)


@dataclass
class ParamSpec:
    """One job parameter: a placeholder or a tuple of placeholders."""

    name: str
    defs: list[tp.ArgBlobDef]
    is_tuple: bool


@dataclass
class TracedJob:
    graph: JobGraph
    params: list[ParamSpec]
    returns: list[Blob]  # flattened
    return_tree: Any  # jax treedef, or None when the body returned None
    return_annotation: Any  # inspect.Signature.empty when unannotated


def _hints(fn, definition_locals: dict[str, Any]) -> dict[str, Any]:
    # `from __future__ import annotations` turns `tp.Numpy.Placeholder(shape)` into a string
    # that may name a local of the scope where the job was defined, or a closure variable.
    local = dict(definition_locals)
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            local[name] = cell.cell_contents
        except ValueError:
            pass
    try:
        return typing.get_type_hints(fn, localns=local)
    except Exception:  # unresolvable forward references: fall back to raw annotations
        return dict(getattr(fn, "__annotations__", {}))


def _flatten_defs(value: Any) -> list[tp.ArgBlobDef] | None:
    if isinstance(value, tp.ArgBlobDef):
        return [value]
    if isinstance(value, (list, tuple)) and value:
        out = []
        for v in value:
            sub = _flatten_defs(v)
            if sub is None:
                return None
            out.extend(sub)
        return out
    return None


def parse_params(
    job_name: str, fn, definition_locals: dict[str, Any] | None = None
) -> tuple[list[ParamSpec], Any]:
    """Reads the placeholders of ``fn`` (all annotated, or none with legacy defaults)."""
    sig = inspect.signature(fn)
    hints = _hints(fn, definition_locals or {})
    params = list(sig.parameters.values())
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        raise JobDefinitionError(
            f"job {job_name!r}: no parameters like *args or **kwargs supported"
        )
    annotated = [p for p in params if p.name in hints]
    specs: list[ParamSpec] = []
    if annotated and len(annotated) != len(params):
        raise JobDefinitionError(
            f"job {job_name!r}: all parameters of global function should be annotated"
        )
    for p in params:
        if annotated:
            ann = hints[p.name]
            if isinstance(ann, tp.ArgBlobDef):
                specs.append(ParamSpec(p.name, [ann], False))
            elif typing.get_origin(ann) is tuple and all(
                isinstance(a, tp.ArgBlobDef) for a in typing.get_args(ann)
            ):
                specs.append(ParamSpec(p.name, list(typing.get_args(ann)), True))
            else:
                raise JobDefinitionError(
                    f"job {job_name!r}: invalid parameter annotation {ann!r} of {p.name!r}; use "
                    "tp.Numpy.Placeholder(shape, dtype), tp.ListNumpy.Placeholder(...) or a "
                    "typing.Tuple of them"
                )
        else:
            defs = _flatten_defs(p.default)
            if defs is None:
                raise JobDefinitionError(
                    f"job {job_name!r}: parameter {p.name!r} needs an annotation such as "
                    "tp.Numpy.Placeholder((2, 3)) (or a legacy default flow.FixedTensorDef(...))"
                )
            specs.append(ParamSpec(p.name, defs, not isinstance(p.default, tp.ArgBlobDef)))
    return specs, hints.get("return", inspect.Signature.empty)


def _make_inputs(graph: JobGraph, params: list[ParamSpec], padded: bool = False) -> list[Any]:
    # Mirrored view: a ListNumpy input is one fixed-shape piece per device; the body sees the
    # piece (per-device shapes, as in OneFlow), a dynamic one when ``padded`` (one device).
    # A fixed-shape (tp.Numpy) input is split along axis 0 among the devices, and its blob
    # has a device's piece's shape too.
    mirrored = graph.config.logical_view.name is View.MIRRORED and not padded
    pieces = mirrored_pieces(graph.config.placement_scope) if mirrored else 1
    args = []
    for spec in params:
        blobs = []
        for k, d in enumerate(spec.defs):
            dynamic = d.is_dynamic and not mirrored
            name = d.name or (spec.name if not spec.is_tuple else f"{spec.name}_{k}")
            shape = d.shape
            if pieces > 1 and not d.is_dynamic:
                if not shape or shape[0] % pieces:
                    raise JobDefinitionError(
                        f"job {graph.name!r}, argument {name!r}: in the mirrored view a "
                        f"tp.Numpy.Placeholder{shape} is split along axis 0 among {pieces} "
                        "devices, which needs its first dimension to be a multiple of "
                        f"{pieces} (or use tp.ListNumpy.Placeholder, one array per device)"
                    )
                shape = (shape[0] // pieces, *shape[1:])
            listed = {"is_tensor_list": True} if d.tensor_list else {}
            op = graph.add_op(
                name=name,
                op_type="input",
                kind=OpKind.INPUT,
                lowering=None,
                inputs=[],
                attrs={
                    "shape": shape,
                    "dtype": d.dtype.name,
                    "is_dynamic": dynamic,
                    "batch_axis": d.batch_axis,
                    **listed,
                },
                outputs=[(shape, d.dtype, dynamic)],
            )
            graph.inputs.append(op.outputs[0])
            blobs.append(op.outputs[0])
        args.append(tuple(blobs) if spec.is_tuple else blobs[0])
    return args


def check_return(job_name: str, ann: Any, value: Any, where: str = "return value") -> None:
    """OneFlow's trace-time check of the returned structure against its annotation."""

    def fail(expected: str) -> None:
        raise JobDefinitionError(
            f"job {job_name!r}: {where} should be {expected}, got "
            f"{type(value).__name__} ({value!r}); {_RETURN_HELP}"
        )

    if ann is None or ann is type(None):
        if value is not None:
            fail("None (the job is annotated -> None)")
        return
    if ann in (tp.Numpy, tp.ListNumpy) and isinstance(value, Blob) and is_tensor_list(value):
        raise JobDefinitionError(
            f"job {job_name!r}: {value.lbn} is a tensor list; annotate it tp.ListListNumpy"
        )
    if ann is tp.ListListNumpy:
        if not isinstance(value, Blob):
            fail("a blob")
        return
    if ann is tp.Numpy:
        if not isinstance(value, Blob):
            fail("a blob")
        if value.is_dynamic:
            raise JobDefinitionError(
                f"job {job_name!r}: only fixed shaped blob compatible to oneflow.typing.Numpy. "
                f"you can change annotation to oneflow.typing.ListNumpy ({value.lbn})"
            )
        return
    if ann is tp.ListNumpy:
        if not isinstance(value, Blob):
            fail("a blob")
        return
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin is tuple:
        if type(value) is not tuple:
            fail("a tuple")
        if len(args) == 2 and args[1] is Ellipsis:
            args = (args[0],) * len(value)
        if len(args) != len(value):
            fail(f"a tuple of {len(args)} items")
        for a, v in zip(args, value):
            check_return(job_name, a, v, where)
        return
    if origin is list:
        if type(value) is not list:
            fail("a list")
        for v in value:
            check_return(job_name, args[0], v, where)
        return
    if origin is dict:
        if type(value) is not dict:
            fail("a dict")
        for k, v in value.items():
            if args and args[0] is not typing.Any and type(k) is not args[0]:
                fail(f"a dict with {args[0].__name__} keys")
            check_return(job_name, args[1], v, where)
        return
    if origin is tp.Callback:
        if args and args[0] is None:
            raise JobDefinitionError(f"job {job_name!r}: tp.Callback[None] is not allowed")
        check_return(job_name, args[0], value, where)
        return
    if origin is tp.Bundle:
        if args[0] not in (tp.Numpy, tp.ListNumpy):
            raise JobDefinitionError(f"job {job_name!r}: tp.Bundle takes tp.Numpy or tp.ListNumpy")
        for leaf in jax.tree_util.tree_leaves(value, is_leaf=lambda x: isinstance(x, Blob)):
            check_return(job_name, args[0], leaf, where)
        return
    raise JobDefinitionError(f"job {job_name!r}: invalid return annotation {ann!r}; {_RETURN_HELP}")


def trace(
    job_name: str,
    fn,
    job_type: str,
    config: Any,
    store: VariableStore,
    definition_locals: dict[str, Any] | None = None,
    eager: Any = None,
    params: list[ParamSpec] | None = None,
    padded_mirrored: bool = False,
    return_annotation: Any = inspect.Signature.empty,
) -> TracedJob:
    """Runs ``fn`` once on placeholder blobs and records its graph. Eager mode: ``eager``
    evaluates each op as it is recorded (runtime/_eager_call.py), and ``params`` are the
    placeholders at the call's real shapes, ``return_annotation`` the job's (both parsed
    already). ``padded_mirrored``: the ListNumpy inputs of a one-device mirrored job are
    padded dynamic blobs (_real_shape.py)."""
    if params is None:
        params, ret_ann = parse_params(job_name, fn, definition_locals)
    else:
        ret_ann = return_annotation
    graph = JobGraph(job_name, job_type, config)
    graph.definition_locals = dict(definition_locals or {})
    graph.eager = eager
    with tracing(graph, store):
        scope = config.placement_scope
        if scope is not None:
            with scope:
                result = fn(*_make_inputs(graph, params, padded_mirrored))
        else:
            result = fn(*_make_inputs(graph, params, padded_mirrored))
    if ret_ann is not inspect.Signature.empty:
        check_return(job_name, ret_ann, result)
    if result is None:
        return TracedJob(graph, params, [], None, ret_ann)
    leaves, tree = jax.tree_util.tree_flatten(result, is_leaf=lambda x: isinstance(x, Blob))
    for leaf in leaves:
        if isinstance(leaf, Blob) and is_tensor_list(leaf):
            # delivered from the host like an argument (its value never enters the program)
            if all(b is not leaf for b in graph.inputs):
                graph.inputs.append(leaf)
            continue
        if isinstance(leaf, Blob) and leaf.dtype.np_dtype.kind == "O":
            raise host_only_error(leaf, f"returned by job {job_name!r}")
        if not isinstance(leaf, Blob) or leaf.graph is not graph:
            raise JobDefinitionError(
                f"job {job_name!r} returned {leaf!r}: a job may return blobs of its own body, "
                "optionally nested in tuple/list/dict"
            )
    return TracedJob(graph, params, leaves, tree, ret_ann)


def outline(traced: TracedJob) -> list[str]:
    """The job's program, one line per op (type, name, outputs): what the ranks of a
    multi-process job compare at its first call (processes/_agree.py)."""
    return [
        f"{op.op_type} {op.name} -> "
        + ", ".join(f"{str(b.dtype).rpartition('.')[2]}{list(b.shape)}" for b in op.outputs)
        for op in traced.graph.ops
    ]


def traced_bytes(graph: JobGraph) -> int:
    """Bytes of every op output of ``graph``: the activations a train step keeps for its
    backward pass, about the size of the buffers its program allocates at each step.

    >>> traced_bytes(JobGraph("empty", "predict", None))
    0
    """
    return sum(b.numel() * b.dtype.np_dtype.itemsize for op in graph.ops for b in op.outputs)
