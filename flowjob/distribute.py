"""``flow.distribute``: SBP annotations and the old names of the logical views."""

from ._src import legacy as _legacy
from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.distribute import (
    Blob,
    Distribute,
    FlowJobError,
    InvalidDistributeError,
    JobDefinitionError,
    apply_op,
    assert_is_valid_distribute,
    auto,
    broadcast,
    current_placement,
    hierarchical_parallel_cast,
    parallel_cast,
    parse_parallel_distribution,
    split,
)

# OneFlow's deprecated spellings served here (each warns once when used, as OneFlow did).
_deprecations = {
    "consistent_strategy": _legacy.consistent_strategy,
    "consistent_strategy_enabled": _legacy.consistent_strategy_enabled,
    "mirrored_strategy": _legacy.mirrored_strategy,
    "mirrored_strategy_enabled": _legacy.mirrored_strategy_enabled,
}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
