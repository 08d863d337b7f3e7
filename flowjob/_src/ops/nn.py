"""``flow.nn``: convolution, pooling, dropout, normalization and cross-entropy ops."""

from ._activations import (
    elu,
    gelu,
    hardsigmoid,
    hardswish,
    hardtanh,
    leaky_relu,
    log_softmax,
    logsoftmax,
    mish,
    relu,
    relu6,
    sigmoid,
    softmax,
    softmax_grad,
    swish,
    tanh,
)
from ._conv_transpose import conv2d_transpose, torch_conv2d_transpose
from ._convolution import (
    avg_pool2d,
    compat_conv2d,
    conv1d,
    conv2d,
    conv3d,
    max_pool2d,
)
from ._functional_losses import (
    bce_loss,
    bce_with_logits_loss,
    kl_div_loss,
    l1_loss,
    margin_ranking_loss,
    mse_loss,
    triplet_margin_loss,
)
from ._fused import (
    fused_bias_add_dropout,
    fused_bias_add_gelu,
    fused_scale_tril,
    fused_scale_tril_softmax_dropout,
    fused_self_attention_query_mul_key_and_value,
)
from ._linalg import bias_add
from ._linalg import tril as _linalg_tril
from ._losses import (
    distributed_sparse_softmax_cross_entropy_with_logits,
    sigmoid_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits,
    sparse_cross_entropy,
    sparse_softmax_cross_entropy_with_logits,
)
from ._norm_layers import group_norm, instance_norm1d, instance_norm2d, instance_norm3d
from ._normalization import batch_normalization, layer_norm, moments
from ._pooling import avg_pool1d, avg_pool3d, max_pool1d, max_pool3d
from ._random import dropout, random_mask_like
from ._resample import PixelShuffle, PixelShufflev2

__all__ = [
    "conv2d",
    "max_pool2d",
    "avg_pool2d",
    "bias_add",
    "dropout",
    "relu",
    "leaky_relu",
    "gelu",
    "sigmoid",
    "tanh",
    "softmax",
    "log_softmax",
    "moments",
    "batch_normalization",
    "layer_norm",
    "sparse_softmax_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits",
    "sigmoid_cross_entropy_with_logits",
    "sparse_cross_entropy",
    "elu",
    "relu6",
    "hardtanh",
    "hardsigmoid",
    "hardswish",
    "swish",
    "mish",
    "logsoftmax",
    "conv2d_transpose",
    "compat_conv2d",
    "MSELoss",
    "L1Loss",
    "BCELoss",
    "BCEWithLogitsLoss",
    "KLDivLoss",
    "MarginRankingLoss",
    "TripletMarginLoss",
    "PixelShuffle",
    "PixelShufflev2",
    "fused_bias_add_gelu",
    "fused_bias_add_dropout",
    "softmax_grad",
    "random_mask_like",
    "conv1d",
    "conv3d",
    "fused_scale_tril",
    "fused_scale_tril_softmax_dropout",
    "GroupNorm",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "max_pool1d",
    "avg_pool1d",
    "max_pool3d",
    "avg_pool3d",
    "tril",
    "fused_self_attention_query_mul_key_and_value",
    "distributed_sparse_softmax_cross_entropy_with_logits",
    "torch_conv2d_transpose",
]

# OneFlow's class-like names for its functional losses
MSELoss = mse_loss
L1Loss = l1_loss
BCELoss = bce_loss
BCEWithLogitsLoss = bce_with_logits_loss
KLDivLoss = kl_div_loss
MarginRankingLoss = margin_ranking_loss
TripletMarginLoss = triplet_margin_loss
# OneFlow v0.4's functional group and instance normalization layers
GroupNorm = group_norm
InstanceNorm1d = instance_norm1d
InstanceNorm2d = instance_norm2d
InstanceNorm3d = instance_norm3d
# OneFlow exported math.tril under nn too
tril = _linalg_tril
