"""Feed ops: a job's host-side data pipeline (readers, decoders, image ops).

A feed op (``OpNode.kind == "feed"``) takes pipeline values or job arguments (then the pipeline
runs in the calling thread, on that call's arguments). Its values are computed on the host for
every call of the job, before the compiled program runs; its numeric outputs (fixed
shapes, or padded dynamic ones) enter the program as extra inputs, after the job's arguments
in ``JobGraph.inputs``.
Outputs only the host can hold (a batch of records, images of differing sizes) feed other
feed ops only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import OpError, describe_frame, user_frame
from ._blob import Blob, OpKind, OpNode, OutputSpec
from ._graph import check_blob, current_graph, default_prefix, is_host_only


class TensorList:
    """The host value of a tensor list: arrays of one rank whose shapes may differ (one
    device's ``tp.ListListNumpy`` argument, or ``tensor_buffer_to_tensor_list``'s output)."""

    __slots__ = ("tensors",)

    def __init__(self, tensors: Sequence[Any]):
        self.tensors = list(tensors)

    def __repr__(self) -> str:
        shapes = ", ".join(str(getattr(t, "shape", "?")) for t in self.tensors)
        return f"TensorList([{shapes}])"


@dataclass(eq=False)
class FeedOp:
    """``source``: ``fn()`` makes the op's stream, a callable returning each call's value;
    otherwise ``fn(*input_values)`` computes the value (a tuple for several outputs).
    ``stage``: an image op's per-image description (data/_stages.py), which lets the
    pipeline run a chain of such ops image by image; ``fn`` runs it alone."""

    op: OpNode
    fn: Callable[..., Any]
    source: bool
    stage: Any = None


def is_pipeline_value(blob: Blob) -> bool:
    """Whether the host pipeline has ``blob``'s value before the compiled program runs: a
    feed op's output, or a job argument (read by the pipeline at each call)."""
    return blob.op.kind is OpKind.FEED or blob.op.kind is OpKind.INPUT


def add_feed_op(
    op_type: str,
    inputs: Sequence[Blob],
    fn: Callable[..., Any],
    *,
    outputs: Sequence[OutputSpec],
    name: str | None = None,
    prefix: str | None = None,
    attrs: dict[str, Any] | None = None,
    source: bool = False,
    stage: Any = None,
) -> Blob | tuple[Blob, ...]:
    """Records a feed op in the current job and returns its output blob(s)."""
    graph = current_graph()
    blobs = [check_blob(b, f"input {i} of {op_type}") for i, b in enumerate(inputs)]
    op_name = name if name is not None else graph.unique_name(prefix or default_prefix(op_type))
    for b in blobs:
        if not is_pipeline_value(b):
            raise OpError(
                f"op {op_name!r} ({op_type}) runs in the host data pipeline, before the job's "
                f"program, so its input {b.lbn} must come from the pipeline too (a reader, "
                f"decoder or image op) or be a job argument, not computed in the job body\n  at "
                f"{describe_frame(user_frame())}"
            )
    # A dynamic output (tensor_buffer_to_list_of_tensors' dynamic_out) reaches the program
    # zero-padded to its shape, with its real shape, as a ListNumpy argument does.
    specs = [(shape, dtype, bool(dynamic)) for shape, dtype, dynamic in outputs]
    attrs = dict(attrs or {})
    op = graph.add_op(
        name=op_name,
        op_type=op_type,
        kind=OpKind.FEED,
        lowering=None,
        inputs=blobs,
        attrs=attrs,
        outputs=specs,
    )
    graph.inputs.extend(b for b in op.outputs if not is_host_only(b))
    feed = FeedOp(op, fn, source, stage)
    graph.feeds.append(feed)
    if graph.eager is not None:  # eager mode: run it now (add_op could not: fn was unknown)
        graph.eager.feed(feed)
    return op.outputs[0] if len(op.outputs) == 1 else tuple(op.outputs)
