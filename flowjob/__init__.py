"""flowjob: OneFlow's lazy job functions on JAX, with watch, async results and TensorBoard logs.

Users write ``import flowjob as flow`` and ``import flowjob.typing as tp``.
"""

import jax as _jax

# OneFlow programs use int64 (train-step counters, summary steps) and float64 blobs.
_jax.config.update("jax_enable_x64", True)

from . import (  # noqa: E402
    checkpoint,
    config,
    data,
    distribute,
    env,
    optimizer,
    scope,
    summary,
    train,
    typing,
    unittest,
)
from ._dtypes import (  # noqa: E402
    bfloat16,
    char,
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
from .checkpoint import get_all_variables, load_variables  # noqa: E402
from .distribute import parallel_cast  # noqa: E402
from .errors import (  # noqa: E402
    CallbackError,
    FlowJobError,
    JobArgumentError,
    JobDefinitionError,
    OpError,
)
from .graph import (  # noqa: E402
    device_prior_placement,
    fixed_placement,
    get_variable,
    watch,
    watch_diff,
)
from .ops import layers, losses, math, nn, regularizers  # noqa: E402
from .ops.array_ops import (  # noqa: E402
    broadcast_like,
    cast,
    concat,
    constant,
    constant_like,
    constant_pad2d,
    count_not_finite,
    diag,
    expand,
    expand_dims,
    flatten,
    gather,
    identity,
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
    reverse,
    slice,
    slice_v2,
    smooth_l1_loss,
    split,
    squeeze,
    stack,
    transpose,
    where,
    zero_pad2d,
    zeros,
    zeros_like,
)
from .ops.initializers import (  # noqa: E402
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
from .runtime import (  # noqa: E402
    FunctionConfig,
    clear_default_session,
    eager_execution_enabled,
    enable_eager_execution,
    function,
    function_config,
    global_function,
    sync_default_session,
)
from .typing import FixedTensorDef, MirroredTensorDef  # noqa: E402

if _jax.config.jax_compilation_cache_dir is None:
    from .runtime._config import compilation_cache as _compilation_cache

    _compilation_cache()

ExecutionConfig = FunctionConfig

save = checkpoint.save
load = checkpoint.get

__version__ = "0.1.0"
