"""Data: ``load_mnist`` (bundled MNIST subset, attribution in ``NOTICE``), OFRecord data sets
(readers and decoders for job bodies, the record classes, writers that publish a whole set
with its manifest, ``inspect_ofrecord``), OneRec files, COCO and Megatron GPT readers, tensor
buffers and the image and detection ops on them."""

from flowjob._src.data._buffer_ops import (
    gen_tensor_buffer,
    is_tensor_buffer,
    tensor_buffer_to_list_of_tensors,
    tensor_buffer_to_tensor,
    tensor_buffer_to_tensor_list,
    tensor_list_to_tensor_buffer,
    tensor_to_tensor_buffer,
)
from flowjob._src.data._buffers import TensorBufferError
from flowjob._src.data._coco import COCOError
from flowjob._src.data._dataset import MANIFEST_NAME, DatasetExistsError, Manifest, read_manifest
from flowjob._src.data._decode import DecodeError
from flowjob._src.data._decode_random import decode_random
from flowjob._src.data._detection_ops import (  # flow.detection
    object_bbox_flip,
    object_bbox_scale,
    object_segmentation_polygon_flip,
    object_segmentation_polygon_scale,
    object_segmentation_polygon_to_mask,
)
from flowjob._src.data._image_buffer_ops import (  # flow.image
    batch_align as image_batch_align,
)
from flowjob._src.data._image_buffer_ops import (
    decode as image_decode,
)
from flowjob._src.data._image_buffer_ops import (
    flip as image_flip,
)
from flowjob._src.data._image_buffer_ops import (
    normalize as image_normalize,
)
from flowjob._src.data._image_buffer_ops import (
    random_crop as image_random_crop,
)
from flowjob._src.data._image_buffer_ops import (
    target_resize as image_target_resize,
)
from flowjob._src.data._image_ops import (  # flow.image/.random
    CoinFlip,
    CropMirrorNormalize,
    ImageDecoderRandomCropResize,
    Resize,
)
from flowjob._src.data._inspect import DatasetReport, Problem, ProblemKind, inspect_ofrecord
from flowjob._src.data._mnist import load_mnist
from flowjob._src.data._modes import ModeError
from flowjob._src.data._ofrecord_ops import (
    OFRecordBytesDecoder,
    OFRecordImageDecoder,
    OFRecordImageDecoderRandomCrop,
    OFRecordRawDecoder,
    ofrecord_reader,
)
from flowjob._src.data._onerec import make_example, parse_example, write_onerec
from flowjob._src.data._onerec_ops import onerec_decoder, onerec_reader
from flowjob._src.data._reader_ops import (
    coco_reader,
    megatron_gpt_mmap_data_loader,
    ofrecord_image_classification_reader,
)
from flowjob._src.data._record import (
    BytesList,
    DoubleList,
    Feature,
    FloatList,
    Int32List,
    Int64List,
    OFRecord,
    RecordError,
    iter_raw_records,
    parse_record,
    read_records,
)
from flowjob._src.data._stages import (  # the data pipeline's image chains
    Running,
    ready,
    start_chain,
)
from flowjob._src.data._stream import EndOfData, part_paths
from flowjob._src.data._writer import make_record, write_image_folder, write_ofrecord, write_records

# OneFlow's snake_case aliases
ofrecord_raw_decoder = OFRecordRawDecoder
ofrecord_bytes_decoder = OFRecordBytesDecoder
ofrecord_image_decoder = OFRecordImageDecoder
ofrecord_image_decoder_random_crop = OFRecordImageDecoderRandomCrop
image_decoder_random_crop_resize = ImageDecoderRandomCropResize
OneRecDecoder = onerec_decoder
MegatronGPTMMapDataLoader = megatron_gpt_mmap_data_loader

__all__ = [
    "load_mnist",
    "coco_reader",
    "ofrecord_image_classification_reader",
    "megatron_gpt_mmap_data_loader",
    "MegatronGPTMMapDataLoader",
    "COCOError",
    "TensorBufferError",
    "tensor_to_tensor_buffer",
    "tensor_buffer_to_tensor",
    "gen_tensor_buffer",
    "tensor_buffer_to_list_of_tensors",
    "tensor_list_to_tensor_buffer",
    "tensor_buffer_to_tensor_list",
    "is_tensor_buffer",
    "image_decode",
    "image_flip",
    "image_normalize",
    "image_random_crop",
    "image_target_resize",
    "image_batch_align",
    "object_bbox_flip",
    "object_bbox_scale",
    "object_segmentation_polygon_flip",
    "object_segmentation_polygon_scale",
    "object_segmentation_polygon_to_mask",
    "ofrecord_reader",
    "OFRecordRawDecoder",
    "OFRecordBytesDecoder",
    "OFRecordImageDecoder",
    "OFRecordImageDecoderRandomCrop",
    "ImageDecoderRandomCropResize",
    "decode_random",
    "ofrecord_raw_decoder",
    "ofrecord_bytes_decoder",
    "ofrecord_image_decoder",
    "ofrecord_image_decoder_random_crop",
    "image_decoder_random_crop_resize",
    "OFRecord",
    "Feature",
    "BytesList",
    "FloatList",
    "DoubleList",
    "Int32List",
    "Int64List",
    "RecordError",
    "DecodeError",
    "EndOfData",
    "parse_record",
    "read_records",
    "iter_raw_records",
    "part_paths",
    "make_record",
    "write_ofrecord",
    "write_records",
    "write_image_folder",
    "onerec_reader",
    "onerec_decoder",
    "OneRecDecoder",
    "write_onerec",
    "make_example",
    "parse_example",
    "inspect_ofrecord",
    "DatasetReport",
    "Problem",
    "ProblemKind",
    "DatasetExistsError",
    "Manifest",
    "MANIFEST_NAME",
    "read_manifest",
    "Running",
    "ready",
    "start_chain",
    "ModeError",
]
