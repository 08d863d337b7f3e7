"""OneFlow v0.4's experimental ``nn`` layers as ``Module`` subclasses (``nn.Linear``,
``nn.Conv2d``, ``nn.BatchNorm2d``, losses, containers...): each ``forward`` calls the
functional API of ``tensor_ops`` (one lowering per op, autograd through ``imperative.apply``).
"""

from ._activation import (
    ELU,
    GELU,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    PReLU,
    ReLU,
    ReLU6,
    Sigmoid,
    Softmax,
    Softplus,
    Tanh,
)
from ._container import (
    ModuleDict,
    ModuleList,
    ParameterDict,
    ParameterList,
    Sequential,
)
from ._data_functions import (
    ofrecord_reader_once,
    raw_decoder,
    tensor_buffer_to_list_of_tensors,
)
from ._dataset import (
    CoinFlip,
    CropMirrorNormalize,
    ImageResize,
    OFRecordImageDecoder,
    OFRecordImageDecoderRandomCrop,
    OfrecordRawDecoder,
    OfrecordReader,
    image,
)
from ._dropout import (
    Dropout,
    Embedding,
    Upsample,
    UpsamplingBilinear2d,
    UpsamplingNearest2d,
)
from ._flatten import (
    Flatten,
)
from ._host_tensor import (
    HostTensor,
    HostTensorError,
)
from ._linear import (
    Conv2d,
    Identity,
    Linear,
)
from ._loss import (
    CrossEntropyLoss,
    NLLLoss,
)
from ._normalization import (
    BatchNorm1d,
    BatchNorm2d,
    LayerNorm,
)
from ._pooling import (
    AvgPool2d,
    MaxPool2d,
)

__all__ = [
    "AvgPool2d",
    "BatchNorm1d",
    "BatchNorm2d",
    "CoinFlip",
    "Conv2d",
    "CropMirrorNormalize",
    "CrossEntropyLoss",
    "Dropout",
    "ELU",
    "Embedding",
    "Flatten",
    "GELU",
    "Hardsigmoid",
    "Hardswish",
    "Hardtanh",
    "Identity",
    "LayerNorm",
    "LeakyReLU",
    "Linear",
    "LogSigmoid",
    "LogSoftmax",
    "MaxPool2d",
    "ModuleDict",
    "ModuleList",
    "NLLLoss",
    "OFRecordImageDecoder",
    "OFRecordImageDecoderRandomCrop",
    "OfrecordRawDecoder",
    "OfrecordReader",
    "PReLU",
    "ParameterDict",
    "ParameterList",
    "ReLU",
    "ReLU6",
    "Sequential",
    "Sigmoid",
    "Softmax",
    "Softplus",
    "Tanh",
    "Upsample",
    "UpsamplingBilinear2d",
    "UpsamplingNearest2d",
    "image",
]
