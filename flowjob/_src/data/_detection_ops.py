"""``flow.detection.object_*`` for job bodies (OneFlow v0.4.0 signatures): data pipeline ops
on tensor buffers of boxes and polygons (``_detection.py`` holds the math)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .. import _dtypes
from ..graph import Blob, add_feed_op
from . import _detection
from ._image_buffer_ops import flip_code_inputs
from ._op_args import _batch, _fail

_BUFFER = (_dtypes.tensor_buffer,)


def _per_image(op: str, buffer: Blob, other: Blob, what: str, dtypes: tuple) -> None:
    if not isinstance(other, Blob) or other.dtype not in dtypes:
        want = " or ".join(d.name for d in dtypes)
        raise _fail(op, f"{what} must be a {want} blob of the data pipeline, got {other!r}")
    if other.shape[0] != buffer.shape[0]:
        raise _fail(
            op,
            f"{what} {other.lbn} has {other.shape[0]} row(s), {buffer.lbn} "
            f"{buffer.shape[0]} instance(s)",
        )


def _flip(
    op: str,
    op_type: str,
    prefix: str,
    host: Callable,
    x: Blob,
    image_size: Blob,
    flip_code: int | Blob,
    name: str | None,
) -> Blob:
    _batch(x, op, _BUFFER)
    _per_image(op, x, image_size, "image_size", (_dtypes.int32,))
    extra, code = flip_code_inputs(op, x, flip_code)
    fn = host if code is None else functools.partial(_with_code, host=host, code=code)
    return add_feed_op(
        op_type,
        [x, image_size, *extra],
        fn,
        name=name,
        prefix=prefix,
        outputs=[(x.shape, _dtypes.tensor_buffer, False)],
    )


def _scale(
    op: str, op_type: str, prefix: str, host: Callable, x: Blob, scale: Blob, name: str | None
) -> Blob:
    _batch(x, op, _BUFFER)
    _per_image(op, x, scale, "scale", (_dtypes.float32,))
    return add_feed_op(
        op_type,
        [x, scale],
        host,
        name=name,
        prefix=prefix,
        outputs=[(x.shape, _dtypes.tensor_buffer, False)],
    )


def object_bbox_flip(
    bbox: Blob, image_size: Blob, flip_code: int | Blob, name: str | None = None
) -> Blob:
    """Boxes ``(xmin, ymin, xmax, ymax)`` mirrored in their (w, h) image: left-right
    ``x' = w - x - 1`` (code 1), top-bottom likewise (16), both (17)."""
    return _flip(
        "detection.object_bbox_flip",
        "object_bbox_flip",
        "ObjectBboxFlip",
        _detection.bbox_flip,
        bbox,
        image_size,
        flip_code,
        name,
    )


def object_bbox_scale(bbox: Blob, scale: Blob, name: str | None = None) -> Blob:
    """Boxes times their image's (w, h) scale (``image.resize``'s second output)."""
    return _scale(
        "detection.object_bbox_scale",
        "object_bbox_scale",
        "ObjectBboxScale",
        _detection.bbox_scale,
        bbox,
        scale,
        name,
    )


def object_segmentation_polygon_flip(
    poly: Blob, image_size: Blob, flip_code: int | Blob, name: str | None = None
) -> Blob:
    """Polygon points mirrored in their (w, h) image: ``x' = w - x`` / ``y' = h - y``."""
    return _flip(
        "detection.object_segmentation_polygon_flip",
        "object_segmentation_polygon_flip",
        "ObjectSegmPolyFilp",
        _detection.poly_flip,
        poly,
        image_size,
        flip_code,
        name,
    )


def object_segmentation_polygon_scale(poly: Blob, scale: Blob, name: str | None = None) -> Blob:
    """Polygon points times their image's (w, h) scale."""
    return _scale(
        "detection.object_segmentation_polygon_scale",
        "object_segmentation_polygon_scale",
        "ObjectSegmPolyFilp",
        _detection.poly_scale,
        poly,
        scale,
        name,
    )


def object_segmentation_polygon_to_mask(
    poly: Blob, poly_index: Blob, image_size: Blob, name: str | None = None
) -> Blob:
    """Each image's segmentations rasterized: int8 ``(num_segmentations, h, w)`` masks."""
    op = "detection.object_segmentation_polygon_to_mask"
    _batch(poly, op, _BUFFER)
    _per_image(op, poly, poly_index, "poly_index", _BUFFER)
    _per_image(op, poly, image_size, "image_size", (_dtypes.int32,))
    return add_feed_op(
        "object_segmentation_polygon_to_mask",
        [poly, poly_index, image_size],
        _detection.poly_to_mask,
        name=name,
        prefix="ObjectSegmPolyToMask",
        outputs=[(poly.shape, _dtypes.tensor_buffer, False)],
    )


def _with_code(x: Any, image_size: Any, *, host: Callable, code: int) -> Any:
    return host(x, image_size, code)
