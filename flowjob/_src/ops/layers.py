"""``flow.layers``: layers that create their own variables."""

from ._conv_layers import avg_pool2d, conv2d, max_pool2d
from ._conv_layers import conv1d_layer as conv1d
from ._conv_layers import conv3d_layer as conv3d
from ._layers import dense, prelu
from ._norm_layers import (
    batch_normalization,
    batch_normalization_add_relu,
    batch_normalization_relu,
    layer_norm,
)
from ._normalization import layer_norm_grad, layer_norm_param_grad
from ._ordinal_encode import categorical_ordinal_encoder
from ._resample import upsample_2d

__all__ = [
    "dense",
    "conv2d",
    "batch_normalization",
    "batch_normalization_relu",
    "batch_normalization_add_relu",
    "layer_norm",
    "max_pool2d",
    "avg_pool2d",
    "prelu",
    "upsample_2d",
    "conv1d",
    "conv3d",
    "layer_norm_grad",
    "layer_norm_param_grad",
    "categorical_ordinal_encoder",
]
