"""The job graph: lazy blobs, named ops, scopes, variables, and what the runtime delivers."""

from ._apply import MicroBatches, apply_op
from ._blob import INVALID_SPLIT_AXIS, OPERATORS, Blob, OpKind, OpNode
from ._current import (
    FunctionDesc,
    Scope,
    cast_to_current_logical_view,
    current_global_function_desc,
    current_scope,
)
from ._delivery import Form, HostDelivery, add_host_op, warn_unreachable_diff, watch, watch_diff
from ._feed import FeedOp, add_feed_op
from ._graph import (
    JobGraph,
    JobType,
    check_blob,
    current_context,
    current_graph,
    host_only_error,
    in_job,
    tracing,
)
from ._real_shape import ELEMENTWISE, RealShape, lowest, valid_mask
from ._registry import all_job_graphs, set_trace_all
from ._scope import (
    Distribute,
    LogicalView,
    Placement,
    Sbp,
    View,
    auto,
    broadcast,
    consistent_view,
    current_placement,
    mirrored_view,
    namespace,
    placement,
    split,
)
from ._variables import VariableDef, VariableStore, get_variable

__all__ = [
    "FunctionDesc",
    "Scope",
    "cast_to_current_logical_view",
    "current_global_function_desc",
    "current_scope",
    "INVALID_SPLIT_AXIS",
    "OPERATORS",
    "Blob",
    "Form",
    "HostDelivery",
    "JobGraph",
    "JobType",
    "OpKind",
    "OpNode",
    "add_host_op",
    "apply_op",
    "MicroBatches",
    "check_blob",
    "current_context",
    "current_graph",
    "host_only_error",
    "in_job",
    "FeedOp",
    "add_feed_op",
    "tracing",
    "all_job_graphs",
    "set_trace_all",
    "Distribute",
    "LogicalView",
    "Placement",
    "Sbp",
    "View",
    "auto",
    "broadcast",
    "consistent_view",
    "current_placement",
    "mirrored_view",
    "namespace",
    "placement",
    "split",
    "VariableDef",
    "VariableStore",
    "get_variable",
    "warn_unreachable_diff",
    "watch",
    "watch_diff",
    "ELEMENTWISE",
    "RealShape",
    "lowest",
    "valid_mask",
]
