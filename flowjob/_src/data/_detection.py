"""Host implementations of OneFlow's detection ops on tensor buffers: boxes ``(K, 4)`` as
``(xmin, ymin, xmax, ymax)`` in pixels, polygons ``(P, 2)`` as ``(x, y)`` points with an index
``(P, 3)`` of ``(point, polygon, segmentation)`` numbers; image sizes ``(N, 2)`` as (w, h)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _buffers
from ._buffers import TensorBufferError
from ._image_buffers import HORIZONTAL, VERTICAL, flip_codes
from ._polyfill import fill_polygons


def _sizes(image_size: Any, count: int, op: str) -> np.ndarray:
    sizes = np.asarray(image_size).reshape(-1, 2)
    if sizes.shape[0] != count:
        raise TensorBufferError(f"{op}: {sizes.shape[0]} image size(s) for {count} instance(s)")
    return sizes


def _floats(op: str, i: int, x: Any, last: int) -> np.ndarray:
    return _buffers.check_instance(op, i, np.asarray(x), ndim=2, last=last, dtype_kind="f")


def bbox_flip(bbox: Any, image_size: Any, codes: Any) -> np.ndarray:
    """Boxes mirrored in their image: ``x' = w - x - 1`` (xmin and xmax swap roles)."""
    op = "detection.object_bbox_flip"
    parts = _buffers.items(bbox)
    sizes = _sizes(image_size, len(parts), op)
    codes = flip_codes(codes, len(parts), op)
    out = []
    for i, (boxes, (w, h), code) in enumerate(zip(parts, sizes.tolist(), codes.tolist())):
        boxes = _floats(op, i, boxes, 4).copy()
        one = boxes.dtype.type(1)
        if code & HORIZONTAL:
            boxes[:, [0, 2]] = w - boxes[:, [2, 0]] - one
        if code & VERTICAL:
            boxes[:, [1, 3]] = h - boxes[:, [3, 1]] - one
        out.append(boxes)
    return _buffers.make(out, np.shape(bbox))


def _scales(scale: Any, count: int, op: str) -> np.ndarray:
    scales = np.asarray(scale, np.float32).reshape(-1, 2)
    if scales.shape[0] != count:
        raise TensorBufferError(f"{op}: {scales.shape[0]} scale(s) for {count} instance(s)")
    return scales


def bbox_scale(bbox: Any, scale: Any) -> np.ndarray:
    """Boxes times their image's (w, h) scale."""
    op = "detection.object_bbox_scale"
    parts = _buffers.items(bbox)
    scales = _scales(scale, len(parts), op)
    out = []
    for i, (boxes, s) in enumerate(zip(parts, scales)):
        boxes = _floats(op, i, boxes, 4)
        out.append(boxes * np.tile(s, 2).astype(boxes.dtype))
    return _buffers.make(out, np.shape(bbox))


def poly_flip(poly: Any, image_size: Any, codes: Any) -> np.ndarray:
    """Polygon points mirrored in their image: ``x' = w - x`` (no -1, as OneFlow)."""
    op = "detection.object_segmentation_polygon_flip"
    parts = _buffers.items(poly)
    sizes = _sizes(image_size, len(parts), op)
    codes = flip_codes(codes, len(parts), op)
    out = []
    for i, (points, (w, h), code) in enumerate(zip(parts, sizes.tolist(), codes.tolist())):
        points = _floats(op, i, points, 2).copy()
        if code & HORIZONTAL:
            points[:, 0] = w - points[:, 0]
        if code & VERTICAL:
            points[:, 1] = h - points[:, 1]
        out.append(points)
    return _buffers.make(out, np.shape(poly))


def poly_scale(poly: Any, scale: Any) -> np.ndarray:
    """Polygon points times their image's (w, h) scale."""
    op = "detection.object_segmentation_polygon_scale"
    parts = _buffers.items(poly)
    scales = _scales(scale, len(parts), op)
    out = [
        _floats(op, i, points, 2) * s.astype(np.asarray(points).dtype)
        for i, (points, s) in enumerate(zip(parts, scales))
    ]
    return _buffers.make(out, np.shape(poly))


def poly_to_mask(poly: Any, poly_index: Any, image_size: Any) -> np.ndarray:
    """Per image, one int8 ``(H, W)`` mask per segmentation, its polygons filled together as
    OpenCV's ``fillPoly`` does (outlines included, even-odd inside; points rounded half to
    even): ``(num_segmentations, H, W)``."""
    op = "detection.object_segmentation_polygon_to_mask"
    parts = _buffers.items(poly)
    index_parts = _buffers.items(poly_index)
    if len(index_parts) != len(parts):
        raise TensorBufferError(f"{op}: {len(index_parts)} index buffer(s) for {len(parts)}")
    sizes = _sizes(image_size, len(parts), op)
    out = []
    for i, (points, index, (w, h)) in enumerate(zip(parts, index_parts, sizes.tolist())):
        points = _floats(op, i, points, 2)
        index = _buffers.check_instance(op, i, np.asarray(index), ndim=2, last=3, dtype_kind="iu")
        if index.shape[0] != points.shape[0]:
            raise TensorBufferError(
                f"{op}: image {i} has {points.shape[0]} point(s) but {index.shape[0]} index rows"
            )
        out.append(_masks(op, i, np.rint(points).astype(np.int64), index, int(w), int(h)))
    return _buffers.make(out, np.shape(poly))


def _masks(op: str, image: int, points: np.ndarray, index: np.ndarray, w: int, h: int):
    segms: list[list[list[tuple[int, int]]]] = []
    for k, ((pt, pi, si), (x, y)) in enumerate(zip(index.tolist(), points.tolist())):
        if si == len(segms):
            segms.append([])
        if pi == len(segms[-1]):
            segms[-1].append([])
        if si != len(segms) - 1 or pi != len(segms[-1]) - 1 or pt != len(segms[-1][-1]):
            raise TensorBufferError(
                f"{op}: image {image}, point {k}: index (point {pt}, polygon {pi}, "
                f"segmentation {si}) is out of order (points must come polygon by polygon)"
            )
        segms[-1][-1].append((x, y))
    masks = np.zeros((len(segms), h, w), np.int8)
    for s, polygons in enumerate(segms):
        fill_polygons(masks[s], [np.asarray(p, np.int64).reshape(-1, 2) for p in polygons])
    return masks
