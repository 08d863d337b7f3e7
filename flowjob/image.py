"""``flow.image``: image ops of the host data pipeline (see ``flowjob.data``)."""

from ._src._namespace import namespace_attributes as _namespace_attributes
from .data import (
    CropMirrorNormalize,
    Resize,
    image_batch_align,
    image_decode,
    image_flip,
    image_normalize,
    image_random_crop,
    image_target_resize,
)

resize = Resize
image_resize = Resize
crop_mirror_normalize = CropMirrorNormalize
decode = image_decode
flip = image_flip
normalize = image_normalize
random_crop = image_random_crop
target_resize = image_target_resize
batch_align = image_batch_align

__all__ = [
    "Resize",
    "resize",
    "CropMirrorNormalize",
    "crop_mirror_normalize",
    "decode",
    "flip",
    "normalize",
    "random_crop",
    "target_resize",
    "batch_align",
]


_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
