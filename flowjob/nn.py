"""``flow.nn``: the job-body ops of ``flowjob._src.ops.nn`` (convolution, pooling, normalization,
losses...) and the eager module API (``Module``, ``Parameter``, ``init``)."""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.imperative import Module, Parameter, init
from ._src.nn_modules import (
    CoinFlip,
    CropMirrorNormalize,
    OFRecordImageDecoder,
    OFRecordImageDecoderRandomCrop,
    OfrecordRawDecoder,
    OfrecordReader,
    image,
)
from ._src.ops import nn as _ops_nn
from ._src.ops.nn import *  # noqa: F403 - this namespace is ops.nn's plus the eager names

__all__ = [*_ops_nn.__all__, "Module", "Parameter", "init"]
__all__ += ["OfrecordReader", "OfrecordRawDecoder", "OFRecordImageDecoder"]
__all__ += ["OFRecordImageDecoderRandomCrop", "CoinFlip", "CropMirrorNormalize", "image"]


_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
