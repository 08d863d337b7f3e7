"""Feed ops: a job's host-side data pipeline (readers, decoders, image ops).

A feed op (``OpNode.kind == "feed"``) takes no job argument. Its values are computed on the
host for every call of the job, before the compiled program runs; its numeric outputs (fixed
shapes) enter the program as extra inputs, after the job's arguments in ``JobGraph.inputs``.
Outputs only the host can hold (a batch of records, images of differing sizes) feed other
feed ops only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import OpError, describe_frame, user_frame
from ._blob import Blob, OpKind, OpNode, OutputSpec
from ._graph import check_blob, current_graph, default_prefix


@dataclass(eq=False)
class FeedOp:
    """``source``: ``fn()`` makes the op's stream, a callable returning each call's value;
    otherwise ``fn(*input_values)`` computes the value (a tuple for several outputs)."""

    op: OpNode
    fn: Callable[..., Any]
    source: bool


def is_host_only(blob: Blob) -> bool:
    """Records and tensor buffers: values that exist only in the data pipeline."""
    return blob.dtype.np_dtype.kind == "O"


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
) -> Blob | tuple[Blob, ...]:
    """Records a feed op in the current job and returns its output blob(s)."""
    graph = current_graph()
    blobs = [check_blob(b, f"input {i} of {op_type}") for i, b in enumerate(inputs)]
    op_name = name if name is not None else graph.unique_name(prefix or default_prefix(op_type))
    feeds = {id(f.op) for f in graph.feeds}
    for b in blobs:
        if id(b.op) not in feeds:
            raise OpError(
                f"op {op_name!r} ({op_type}) runs in the host data pipeline, before the job's "
                f"program, so its input {b.lbn} must come from the pipeline too (a reader, "
                f"decoder or image op), not from the job body\n  at "
                f"{describe_frame(user_frame())}"
            )
    # Pipeline outputs reach the program as fixed-shape inputs, never padded dynamic ones.
    specs = [(shape, dtype, False) for shape, dtype, _ in outputs]
    op = graph.add_op(
        name=op_name,
        op_type=op_type,
        kind=OpKind.FEED,
        lowering=None,
        inputs=blobs,
        attrs=dict(attrs or {}),
        outputs=specs,
    )
    graph.inputs.extend(b for b in op.outputs if not is_host_only(b))
    feed = FeedOp(op, fn, source)
    graph.feeds.append(feed)
    if graph.eager is not None:  # eager mode: run it now (add_op could not: fn was unknown)
        graph.eager.feed(feed)
    return op.outputs[0] if len(op.outputs) == 1 else tuple(op.outputs)
