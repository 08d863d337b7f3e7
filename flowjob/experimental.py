"""``flow.experimental``: of OneFlow v0.4's experimental namespace, flowjob has the legacy
ops exported there (``unique_with_counts``, ``indexed_slices_reduce_sum``, ``square_sum``,
eager mode's one-to-one ``eager_assign_121``, slices of whole split blobs ``logical_slice`` and
``logical_slice_assign``), stale variable copies (``ssp_variable_proxy``), scope attributes
(``scope.config``), the interface blob reads and writes of variables
(``get/set_interface_blob_value``), the session's jobs as OneFlow's ``JobSet`` protobuf
(``get_job_set``, read by tools such as oneflow-onnx) and the Python-kernel custom op modules
(``custom_op_module``), and the eager API v0.4.0 shipped here: ``Tensor`` with autograd
(``autograd``, ``no_grad``), the functional ops on tensors, ``nn`` with its ``Module`` layers
and ``optim``. Every other name of ``flow`` is here too (``flow.experimental.float32``), as
v0.4 published its whole API under ``oneflow.experimental``; where a name exists in both, the
eager API's wins here (``flow.experimental.sum(tensor, dim)``)."""

from . import (
    autograd,
    nn,
    optim,
)
from ._src._namespace import (
    namespace_attributes as _namespace_attributes,
)
from ._src.autograd import (
    enable_grad,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from ._src.experimental import (
    Blob,
    CustomOpModule,
    apply_op,
    assign,
    custom_op_module,
    eager_assign_121,
    enable_typing_check,
    get_interface_blob_value,
    get_job_set,
    indexed_slices_reduce_sum,
    logical_slice,
    logical_slice_assign,
    scope,
    scope_config,
    set_interface_blob_value,
    square_sum,
    ssp_variable_proxy,
    unique_with_counts,
)
from ._src.imperative import (
    Tensor,
    device,
    tensor,
)
from ._src.nn_modules import (
    tensor_buffer_to_list_of_tensors,
)
from ._src.tensor_ops import (  # noqa: A004 - OneFlow's names shadow builtins here
    abs,
    add,
    arange,
    arcsin,
    arcsinh,
    argmax,
    argwhere,
    asin,
    asinh,
    broadcast_like,
    cast,
    cat,
    cos,
    cosh,
    div,
    eq,
    equal,
    exp,
    flatten,
    gather,
    gelu,
    gt,
    log,
    lt,
    masked_fill,
    matmul,
    mean,
    mul,
    neg,
    negative,
    ones,
    ones_like,
    pow,
    reciprocal,
    repeat,
    reshape,
    rsqrt,
    sigmoid,
    sin,
    slice,
    slice_update,
    softmax,
    sqrt,
    square,
    squeeze,
    std,
    sub,
    sum,
    tanh,
    to,
    transpose,
    unsqueeze,
    var,
    where,
    zeros,
    zeros_like,
)

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations, fallback="flowjob")
