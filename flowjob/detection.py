"""``flow.detection``: box and polygon ops of the host data pipeline (see ``flowjob.data``)."""

from ._src._namespace import namespace_attributes as _namespace_attributes
from .data import (
    object_bbox_flip,
    object_bbox_scale,
    object_segmentation_polygon_flip,
    object_segmentation_polygon_scale,
    object_segmentation_polygon_to_mask,
)

__all__ = [
    "object_bbox_flip",
    "object_bbox_scale",
    "object_segmentation_polygon_flip",
    "object_segmentation_polygon_scale",
    "object_segmentation_polygon_to_mask",
]


_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
