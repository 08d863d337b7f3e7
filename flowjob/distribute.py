"""``flow.distribute``: SBP annotations and the old names of the logical views."""

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
    consistent_strategy,
    consistent_strategy_enabled,
    current_placement,
    hierarchical_parallel_cast,
    mirrored_strategy,
    mirrored_strategy_enabled,
    parallel_cast,
    parse_parallel_distribution,
    split,
)
