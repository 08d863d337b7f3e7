"""flowjob: OneFlow's lazy job functions on JAX, with watch, async results and TensorBoard logs.

Users write ``import flowjob as flow`` and ``import flowjob.typing as tp``.
"""

# JAX is configured when the first session starts (runtime/_config.py start_jax), not here.
from . import (
    checkpoint,
    config,
    data,
    distribute,
    env,
    image,
    optimizer,
    random,
    scope,
    summary,
    train,
    typing,
    unittest,
)
from ._dtypes import (
    bfloat16,
    char,
    convert_oneflow_dtype_to_numpy_dtype,
    double,
    float,
    float16,
    float32,
    float64,
    int8,
    int32,
    int64,
    uint8,
)
from .checkpoint import get_all_variables, load_variables
from .distribute import parallel_cast
from .errors import (
    CallbackError,
    ConfigError,
    FlowJobError,
    JobArgumentError,
    JobDefinitionError,
    OpError,
)
from .graph import (
    INVALID_SPLIT_AXIS,
    cast_to_current_logical_view,
    current_global_function_desc,
    current_scope,
    device_prior_placement,
    fixed_placement,
    get_variable,
    watch,
    watch_diff,
)
from .ops import layers, losses, math, nn, regularizers
from .ops._loss_fns import smooth_l1_loss
from .ops.array_ops import (
    amp_white_identity,
    argsort,
    broadcast_like,
    broadcast_to_compatible_with,
    cast,
    concat,
    constant,
    constant_like,
    constant_pad2d,
    constant_scalar,
    count_not_finite,
    diag,
    dim_gather,
    expand,
    expand_dims,
    flatten,
    gather,
    gather_nd,
    identity,
    identity_n,
    masked_fill,
    matmul,
    multi_count_not_finite,
    one_hot,
    ones,
    ones_like,
    pad,
    range,
    reflection_pad2d,
    replication_pad2d,
    reshape,
    reshape_like,
    reverse,
    scatter_nd,
    slice,
    slice_update,
    slice_v2,
    sort,
    split,
    squeeze,
    stack,
    tensor_scatter_nd_add,
    tensor_scatter_nd_update,
    transpose,
    unsorted_batch_segment_sum,
    unsorted_segment_sum,
    unsorted_segment_sum_like,
    where,
    zero_pad2d,
    zeros,
    zeros_like,
)
from .ops.initializers import (
    constant_initializer,
    empty_initializer,
    glorot_normal_initializer,
    glorot_uniform_initializer,
    kaiming_initializer,
    ones_initializer,
    random_normal_initializer,
    random_uniform_initializer,
    truncated_normal,
    truncated_normal_initializer,
    variance_scaling_initializer,
    xavier_normal_initializer,
    xavier_uniform_initializer,
    zeros_initializer,
)
from .runtime import (
    FunctionConfig,
    clear_default_session,
    eager_execution_enabled,
    enable_eager_execution,
    function,
    function_config,
    global_function,
    sync_default_session,
)
from .typing import FixedTensorDef, MirroredTensorDef

ExecutionConfig = FunctionConfig
# OneFlow exports clip_by_value under these top-level names too
clip_by_value = clip = clamp = clip_by_scalar = math.clip_by_value

save = checkpoint.save
load = checkpoint.get

__version__ = "0.1.0"
