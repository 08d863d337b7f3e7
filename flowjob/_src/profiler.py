"""``flow.profiler``: named ranges for profiles.

OneFlow marks NVTX ranges for CUDA's profilers. flowjob marks the same ranges as
``jax.profiler.TraceAnnotation`` spans, so they appear in JAX's profiler traces
(``jax.profiler.trace``, TensorBoard's profile plugin) on any device. ``nvtx_start``/``nvtx_end``
are identity ops in the job graph (recorded with their ``mark_prefix``; XLA keeps no marks
inside a compiled step).
"""

from __future__ import annotations

import threading

import jax

from .errors import FlowJobError
from .graph import Blob, apply_op

__all__ = ["nvtx_end", "nvtx_start", "open_ranges", "range_pop", "range_push"]

_ranges = threading.local()


def _open() -> list[jax.profiler.TraceAnnotation]:
    if not hasattr(_ranges, "stack"):
        _ranges.stack = []
    return _ranges.stack


def range_push(range_name: str) -> None:
    """Opens the range ``range_name`` on this thread (closed by ``range_pop``)."""
    annotation = jax.profiler.TraceAnnotation(str(range_name))
    annotation.__enter__()
    _open().append(annotation)


def range_pop() -> None:
    """Closes the innermost range ``range_push`` opened on this thread."""
    stack = _open()
    if not stack:
        raise FlowJobError(
            "flow.profiler.range_pop(): no range is open on this thread "
            "(expected a flow.profiler.range_push before it)"
        )
    stack.pop().__exit__(None, None, None)


def open_ranges() -> int:
    """How many ranges are open on this thread."""
    return len(_open())


def _lower_mark(x, *, mark_prefix):
    return x


def nvtx_start(x: Blob, mark_prefix: str, name: str | None = None) -> Blob:
    """``x`` unchanged, as an op marking where the range ``mark_prefix`` starts."""
    return apply_op(
        "nvtx_start",
        _lower_mark,
        [x],
        attrs={"mark_prefix": mark_prefix},
        name=name,
        prefix="NvtxStart",
        elementwise=True,
    )


def nvtx_end(x: Blob, mark_prefix: str, name: str | None = None) -> Blob:
    """``x`` unchanged, as an op marking where the range ``mark_prefix`` ends."""
    return apply_op(
        "nvtx_end",
        _lower_mark,
        [x],
        attrs={"mark_prefix": mark_prefix},
        name=name,
        prefix="NvtxEnd",
        elementwise=True,
    )
