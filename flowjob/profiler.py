"""``flow.profiler``: named ranges for profiles.

OneFlow marks NVTX ranges for CUDA's profilers. flowjob marks the same ranges as
``jax.profiler.TraceAnnotation`` spans, so they appear in JAX's profiler traces
(``jax.profiler.trace``, TensorBoard's profile plugin) on any device. ``nvtx_start``/``nvtx_end``
are identity ops in the job graph (recorded with their ``mark_prefix``; XLA keeps no marks
inside a compiled step).
"""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.profiler import (
    Blob,
    FlowJobError,
    apply_op,
    nvtx_end,
    nvtx_start,
    open_ranges,
    range_pop,
    range_push,
)

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
