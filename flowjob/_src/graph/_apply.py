"""``apply_op``: how every device op of ``flowjob._src.ops`` is recorded in the current job."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import jax

from .. import _dtypes, kernels
from ..errors import OpError, describe_frame, user_frame
from ._blob import Blob, OpKind
from ._graph import check_blob, current_graph, default_prefix, host_only_error, is_host_only
from ._op_key import op_key
from ._real_shape import ELEMENTWISE, RealShape

_SHAPES: dict[Any, Any] = {}
MAX_SHAPES = 4096


def _output_specs(lowering, attrs: dict[str, Any], rng: bool, specs: list) -> Any:
    """``jax.eval_shape`` of the op, remembered per lowering, attributes and input specs: an
    eager body records its ops again on every call, and networks repeat layers."""
    identity = op_key(lowering, attrs)
    key = None if identity is None else (identity, rng, tuple((s.shape, s.dtype) for s in specs))
    if key is not None and key in _SHAPES:
        return _SHAPES[key]
    with kernels.tracing_shapes():
        if rng:  # the key as a shape too: a real one would start JAX's backend mid-trace
            key_spec = jax.eval_shape(lambda: jax.random.PRNGKey(0))
            out = jax.eval_shape(lambda k, *xs: lowering(*xs, **attrs, key=k), key_spec, *specs)
        else:
            out = jax.eval_shape(lambda *xs: lowering(*xs, **attrs), *specs)
    if key is not None:
        if len(_SHAPES) >= MAX_SHAPES:
            _SHAPES.clear()
        _SHAPES[key] = out
    return out


def apply_op(
    op_type: str,
    lowering: Callable[..., Any],
    inputs: Sequence[Blob],
    *,
    attrs: dict[str, Any] | None = None,
    name: str | None = None,
    prefix: str | None = None,
    rng: bool = False,
    elementwise: bool = False,
    real_shape: RealShape | None = None,
    micro_batches: MicroBatches | None = None,
    dynamic_source: bool = False,
    static_outputs: bool = False,
):
    """Records one op in the current job and returns its output blob(s).

    ``lowering(*arrays, **attrs)`` (plus ``key=`` when ``rng``) is the op's only
    implementation; output shapes and dtypes come from ``jax.eval_shape`` of it. Dynamic
    inputs need ``real_shape`` (``elementwise=True`` is its elementwise rule); the outputs of
    an op with a dynamic input, or with a ``real_shape.device`` rule, are dynamic.
    ``dynamic_source``: the outputs are dynamic even without dynamic inputs (an op that decides
    its outputs' sizes, as OneFlow's dynamic sources); ``real_shape``'s rule gives their real
    shapes. ``static_outputs``: the outputs are static even with dynamic inputs (an op whose
    result fills its full shape, as ``cast_to_static_shape``; its rule gives that shape).

    An op on micro-batched inputs (``Blob.micro_batches`` > 1) runs on each micro-batch
    (``jax.vmap`` of its lowering) unless ``micro_batches`` says how it changes them
    (``MicroBatches``).
    """
    graph = current_graph()
    attrs = dict(attrs or {})
    blobs = [check_blob(b, f"input {i} of {op_type}") for i, b in enumerate(inputs)]
    op_name = name if name is not None else graph.unique_name(prefix or default_prefix(op_type))
    for b in blobs:
        if is_host_only(b):  # records, tensor buffers and lists live in the data pipeline
            raise host_only_error(b, f"an input of op {op_name!r} ({op_type})")
    if elementwise:
        real_shape = ELEMENTWISE
    dynamic = any(b.is_dynamic for b in blobs)
    dynamic = dynamic or (real_shape is not None and real_shape.device is not None)
    if dynamic and real_shape is None:
        raise _refused(op_name, op_type, graph.name, blobs)
    if dynamic_source:
        if real_shape is None:
            raise OpError(f"op {op_name!r} ({op_type}): a dynamic source needs a real_shape rule")
        dynamic = True
    steps, timed = _micro_batches(op_type, op_name, graph.name, blobs, dynamic, micro_batches)
    stacked = micro_batches is not None and micro_batches.gather
    specs = [
        jax.ShapeDtypeStruct((b.micro_batches,) * (stacked and t) + b.shape, b.dtype.np_dtype)
        for b, t in zip(blobs, timed)
    ]
    try:
        out = _output_specs(lowering, attrs, rng, specs)
    except OpError:
        raise
    except Exception as exc:  # JAX raises many types; report them all the same way
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        shapes = ", ".join(f"{b.lbn}: {b.shape} {b.dtype.name}" for b in blobs) or "none"
        raise OpError(
            f"op {op_name!r} ({op_type}) in job {graph.name!r} cannot apply to its inputs: "
            f"{msg}\n  inputs: {shapes}\n  attrs: {_short(attrs)}\n"
            f"  at {describe_frame(user_frame())}"
        ) from None
    multi = isinstance(out, tuple)
    leaves = out if multi else (out,)
    split = micro_batches is not None and micro_batches.count > 1
    outputs = [
        (
            o.shape[1:] if split else o.shape,
            _dtypes.as_dtype(o.dtype),
            dynamic and not static_outputs,
        )
        for o in leaves
    ]
    if steps > 1 and micro_batches is None:  # the op runs on each micro-batch
        lowering = _on_each(lowering, timed, rng)
    op = graph.add_op(
        name=op_name,
        op_type=op_type,
        kind=OpKind.DEVICE,
        lowering=lowering,
        inputs=blobs,
        attrs=attrs,
        outputs=outputs,
        rng=rng,
        real_shape=real_shape if dynamic else None,
        elementwise=real_shape is ELEMENTWISE,
    )
    out_steps = micro_batches.count if micro_batches is not None else steps
    for blob in op.outputs:
        blob.micro_batches = out_steps
    return tuple(op.outputs) if multi else op.outputs[0]


@dataclass(frozen=True)
class MicroBatches:
    """How an op changes micro-batches: ``count`` > 1, its lowering returns that many stacked
    on a leading axis (``flow.unpack``, ``flow.repeat``); ``gather``, it gets its inputs'
    micro-batches stacked and returns one value (``flow.pack``, ``flow.acc``)."""

    count: int = 1
    gather: bool = False


def _micro_batches(op_type, op_name, job, blobs, dynamic, change):
    """The micro-batch count of an op's inputs, and which inputs have them."""
    timed = [b.micro_batches > 1 for b in blobs]
    counts = {b.micro_batches for b in blobs if b.micro_batches > 1}
    problem = None
    if len(counts) > 1:
        problem = f"its inputs come in different numbers of micro-batches {sorted(counts)}"
    elif counts and dynamic:
        problem = "micro-batched dynamic blobs are not supported"
    elif counts and change is not None and change.count > 1:
        problem = "its input is micro-batched already"
    elif change is not None and change.gather and not counts:
        problem = "its input is not micro-batched (make it with flow.unpack or flow.repeat)"
    if problem:
        raise OpError(
            f"op {op_name!r} ({op_type}) in job {job!r}: {problem}\n  at "
            f"{describe_frame(user_frame())}"
        )
    return (counts.pop() if counts else 1), timed


def _on_each(lowering, timed, rng):
    """``lowering`` mapped over the leading micro-batch axis of the ``timed`` inputs (random
    ops draw a different key for each micro-batch)."""
    axes = tuple(0 if t else None for t in timed)

    def each(*arrays, **attrs):
        if not rng:
            return jax.vmap(lambda *xs: lowering(*xs, **attrs), in_axes=axes)(*arrays)
        key = attrs.pop("key")
        steps = next(a.shape[0] for a, t in zip(arrays, timed) if t)
        keys = jax.random.split(key, steps)
        return jax.vmap(lambda k, *xs: lowering(*xs, key=k, **attrs), in_axes=(0, *axes))(
            keys, *arrays
        )

    return each


def _refused(op_name: str, op_type: str, job: str, blobs: list[Blob]) -> OpError:
    """The error of an op without a real-shape rule given a dynamic blob: what made the blob
    dynamic, and the fix that fits (a ListNumpy argument, or a blob made in the job)."""
    blob = next(b for b in blobs if b.is_dynamic)
    origin = made_dynamic_by(blob)
    head = (
        f"op {op_name!r} ({op_type}) in job {job!r} does not accept dynamic blobs (it has no "
        f"rule for their real shapes): its input {blob.lbn} is dynamic"
    )
    if origin.kind is OpKind.INPUT:
        why = (
            f", as the job's argument {origin.name!r} is a tp.ListNumpy.Placeholder. If every "
            "call passes it at its declared shape, declare it tp.Numpy.Placeholder"
        )
    else:
        where = describe_frame(origin.user_frame) if origin.user_frame else "(no source line)"
        why = (
            f", made dynamic by op {origin.name!r} ({origin.op_type}) at {where}: its size "
            "depends on the data. To run this op on it anyway, make it static first with "
            "flow.cast_to_static_shape (its padding then holds zeros, which this op would "
            "count as values)"
        )
    instead = _DYNAMIC_FORMS.get(op_type)
    if instead:
        why += f"; {instead} takes dynamic blobs"
    return OpError(
        f"{head}{why}; or compute it with ops that take dynamic blobs (listed in the "
        f"documentation: Job functions and typing)\n  at {describe_frame(user_frame())}"
    )


# Ops with a sibling that takes dynamic blobs.
_DYNAMIC_FORMS = {
    "reshape": "flow.dynamic_reshape",
    "reshape_like": "flow.dynamic_reshape",
    "flatten": "flow.dynamic_reshape",
}


def made_dynamic_by(blob: Blob) -> Any:
    """The op that made ``blob`` dynamic: up its chain of dynamic inputs, the first op with
    none (a ListNumpy argument's input op, or an op that sizes its outputs by the data, as
    ``sync_dynamic_resize`` after ``argwhere``: then the ``argwhere``)."""
    op = blob.op
    while True:
        dynamic = [b for b in op.inputs if b.is_dynamic]
        if not dynamic:
            break
        op = dynamic[0].op
    if op.op_type == "sync_dynamic_resize" and op.inputs and op.inputs[0].op.op_type == "argwhere":
        return op.inputs[0].op  # flow.argwhere / flow.where(condition): one op to the user
    return op


def _short(attrs: dict[str, Any]) -> str:
    text = ", ".join(f"{k}={v!r}" for k, v in attrs.items())
    return text if len(text) < 300 else text[:300] + "..."
