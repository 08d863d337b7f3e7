"""``flow.detection``: box and polygon ops of the host data pipeline (see ``flowjob.data``)."""

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
