"""``flow.distributed``: this process's rank among the machines training together
(``flow.env.machine``), as ``jax.distributed`` numbers them."""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.distributed import (
    current_machine_id,
    get_rank,
    get_world_size,
)

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
