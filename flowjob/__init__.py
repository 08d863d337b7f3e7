"""flowjob: OneFlow's lazy job functions on JAX, with watch, async results and TensorBoard logs.

Users write ``import flowjob as flow`` and ``import flowjob.typing as tp``.
"""

# JAX is configured when the first session starts (runtime/_config.py start_jax), not here.
from . import (
    advanced,
    autograd,
    checkpoint,
    config,
    data,
    deprecated,
    detection,
    distribute,
    distributed,
    env,
    experimental,
    image,
    layers,
    linalg,
    losses,
    math,
    model,
    nn,
    onnx,
    optim,
    optimizer,
    profiler,
    quantization,
    random,
    regularizers,
    saved_model,
    scope,
    serving,
    summary,
    sysconfig,
    system,
    tensorrt,
    tmp,
    train,
    typing,
    unittest,
    userop,
    util,
)
from ._src import legacy as _legacy
from ._src._dtypes import DType as dtype
from ._src._dtypes import (
    bfloat16,
    char,
    convert_oneflow_dtype_to_numpy_dtype,
    double,
    dtypes,
    float,
    float16,
    float32,
    float64,
    int8,
    int32,
    int64,
    record,
    tensor_buffer,
    uint8,
)
from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src._size import Size
from ._src.autograd import no_grad
from ._src.graph import (
    INVALID_SPLIT_AXIS,
    cast_to_current_logical_view,
    current_global_function_desc,
    current_scope,
    get_variable,
    watch,
    watch_diff,
)
from ._src.imperative import Tensor, device, eager_nccl_all_reduce, tensor
from ._src.legacy import (
    FunctionConfig,
    InitEagerGlobalSession,
    function_config,
    global_function,
    inter_job_reuse_mem_strategy,
    is_deprecated,
)
from ._src.ops import (
    combined_margin_loss,
    ctc_loss,
    smooth_l1_loss,
)
from ._src.ops.array_ops import (
    acc,
    amp_white_identity,
    argsort,
    argwhere,
    assign,
    broadcast_like,
    broadcast_to_compatible_with,
    cast,
    cast_to_static_shape,
    categorical_ordinal_encode,
    concat,
    constant,
    constant_like,
    constant_pad2d,
    constant_scalar,
    count_not_finite,
    diag,
    dim_gather,
    distributed_partial_fc_sample,
    dynamic_reshape,
    elem_cnt,
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
    nonzero,
    one_hot,
    ones,
    ones_like,
    pack,
    pad,
    pad_grad,
    range,
    reflection_pad2d,
    repeat,
    replication_pad2d,
    reshape,
    reshape_like,
    reverse,
    same_padding,
    scatter_nd,
    slice,
    slice_update,
    slice_v2,
    sort,
    split,
    squeeze,
    stack,
    sync_dynamic_resize,
    tensor_scatter_nd_add,
    tensor_scatter_nd_update,
    transpose,
    unpack,
    unsorted_batch_segment_sum,
    unsorted_segment_sum,
    unsorted_segment_sum_like,
    where,
    zero_pad2d,
    zeros,
    zeros_like,
)
from ._src.ops.initializers import (
    constant_initializer,
    empty_initializer,
    glorot_normal_initializer,
    glorot_uniform_initializer,
    kaiming_initializer,
    ones_initializer,
    random_normal_initializer,
    random_uniform_initializer,
    truncated_normal_initializer,
    variance_scaling_initializer,
    xavier_normal_initializer,
    xavier_uniform_initializer,
    zeros_initializer,
)
from ._src.ops.math import in_top_k
from ._src.runtime import (
    clear_default_session,
    current_resource,
    eager_execution_enabled,
    enable_eager_execution,
    sync_default_session,
)
from .checkpoint import get_all_variables, load_variables
from .data import (
    gen_tensor_buffer,
    image_batch_align,
    image_decode,
    image_flip,
    image_normalize,
    image_random_crop,
    image_target_resize,
    object_bbox_flip,
    object_bbox_scale,
    object_segmentation_polygon_flip,
    object_segmentation_polygon_scale,
    object_segmentation_polygon_to_mask,
    tensor_buffer_to_list_of_tensors,
    tensor_buffer_to_tensor,
    tensor_buffer_to_tensor_list,
    tensor_list_to_tensor_buffer,
    tensor_to_tensor_buffer,
)
from .distribute import hierarchical_parallel_cast, parallel_cast
from .distributed import current_machine_id
from .errors import (
    CallbackError,
    ConfigError,
    FlowJobError,
    JobArgumentError,
    JobDefinitionError,
    JobStopped,
    OpError,
    RankFailedError,
)
from .model import Model
from .userop import (
    builtin_op,
    consistent_user_op_builder,
    consistent_user_op_module_builder,
    find_or_create_module,
    register_python_op,
    user_op_builder,
    user_op_module_builder,
)

ExecutionConfig = FunctionConfig
# OneFlow v0.4's init.py aliases: flow.dtype (imported above) is the type of every dtype,
# flow.half is float16, flow.int is int32 and flow.long is int64.
half = float16
int = int32  # noqa: A001 - OneFlow's spelling
long = int64
image_resize = image.Resize
# OneFlow exports clip_by_value under these top-level names too
clip_by_value = clip = clamp = clip_by_scalar = math.clip_by_value

from ._src.checkpoint import save_object as save  # noqa: E402 - flow.save(obj, save_dir)

load = checkpoint.get

__version__ = "0.1.0"


# OneFlow's deprecated spellings served here (each warns once when used, as OneFlow did).
_deprecations = {
    "FixedTensorDef": _legacy.FixedTensorDef,
    "MirroredTensorDef": _legacy.MirroredTensorDef,
    "device_prior_placement": _legacy.device_prior_placement,
    "fixed_placement": _legacy.fixed_placement,
    "name_scope": _legacy.name_scope,
    "truncated_normal": _legacy.truncated_normal,
    "function": _legacy.function,
}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
