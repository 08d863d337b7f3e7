"""``flow.layers``: layers that create their own variables."""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.ops.layers import (
    avg_pool2d,
    batch_normalization,
    batch_normalization_add_relu,
    batch_normalization_relu,
    categorical_ordinal_encoder,
    conv1d,
    conv2d,
    conv3d,
    dense,
    layer_norm,
    layer_norm_grad,
    layer_norm_param_grad,
    max_pool2d,
    prelu,
    upsample_2d,
)

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
