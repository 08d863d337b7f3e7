"""``flow.layers``: layers that create their own variables."""

from ._conv_nd import conv1d_layer as conv1d
from ._conv_nd import conv3d_layer as conv3d
from ._fused_layers import batch_normalization_add_relu, batch_normalization_relu
from ._layers import avg_pool2d, batch_normalization, conv2d, dense, layer_norm, max_pool2d
from ._layers_extra import prelu, upsample_2d

__all__ = ["dense", "conv2d", "batch_normalization", "batch_normalization_relu",
           "batch_normalization_add_relu", "layer_norm", "max_pool2d", "avg_pool2d", "prelu",
           "upsample_2d", "conv1d", "conv3d"]
