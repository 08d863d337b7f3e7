"""OneFlow v0.4's experimental ``nn`` layers as ``Module`` subclasses (``nn.Linear``,
``nn.Conv2d``, ``nn.BatchNorm2d``, losses, containers...): each ``forward`` calls the
functional API of ``tensor_ops`` (one lowering per op, autograd through ``imperative.apply``).
"""

from ._data_functions import ofrecord_reader_once, raw_decoder, tensor_buffer_to_list_of_tensors
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
from ._host_tensor import HostTensor, HostTensorError

__all__: list[str] = []
# flow.nn's data modules (HostTensor, the tmp one-shots and tensor_buffer_to_list_of_tensors
# are imported from here by name, not star-exported into flow.nn)
__all__ += ["CoinFlip", "CropMirrorNormalize", "OFRecordImageDecoder"]
__all__ += ["OFRecordImageDecoderRandomCrop", "OfrecordRawDecoder", "OfrecordReader", "image"]
