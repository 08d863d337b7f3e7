"""``flow.advanced``: OneFlow's explicit per-device blobs of a consistent job.

``distribute_split`` cuts a blob into one piece per device of the current placement,
``distribute_clone`` gives each device a copy, ``distribute_concat`` / ``distribute_add``
join one blob per device back into one, and ``distribute_map`` applies a function to each
device's piece. In flowjob a consistent job is one program that JAX partitions, so these are
the same computations written on whole arrays: the pieces are real blobs of the job, and the
values match OneFlow's (pieces balanced as OneFlow's ``BalancedSplitter``: the first
``length % n`` pieces are one longer).
"""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.advanced import (
    Blob,
    JobDefinitionError,
    apply_op,
    current_placement,
    distribute_add,
    distribute_clone,
    distribute_concat,
    distribute_map,
    distribute_split,
    placement,
)

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
