"""``flow.nn``: convolution, pooling, dropout, normalization and cross-entropy ops."""

from ._array_v04 import PixelShuffle, PixelShufflev2
from ._losses import (
    sigmoid_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits,
    sparse_cross_entropy,
    sparse_softmax_cross_entropy_with_logits,
)
from ._math_v04 import fused_bias_add_gelu
from ._nn import avg_pool2d, bias_add, conv2d, dropout, max_pool2d
from ._normalization import batch_normalization, layer_norm, moments
from ._pair_losses import KLDivLoss, MarginRankingLoss, TripletMarginLoss
from ._reduce import log_softmax, softmax
from ._unary import gelu, leaky_relu, relu, sigmoid, tanh

__all__ = [
    "conv2d", "max_pool2d", "avg_pool2d", "bias_add", "dropout", "relu", "leaky_relu", "gelu",
    "sigmoid", "tanh", "softmax", "log_softmax", "moments", "batch_normalization", "layer_norm",
    "sparse_softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits",
    "sigmoid_cross_entropy_with_logits", "sparse_cross_entropy", "KLDivLoss",
    "MarginRankingLoss", "TripletMarginLoss", "PixelShuffle", "PixelShufflev2",
    "fused_bias_add_gelu",
]
