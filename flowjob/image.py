"""``flow.image``: image ops of the host data pipeline (see ``flowjob.data``)."""

from .data import CropMirrorNormalize, Resize

resize = Resize
image_resize = Resize
crop_mirror_normalize = CropMirrorNormalize

__all__ = ["Resize", "resize", "CropMirrorNormalize", "crop_mirror_normalize"]
