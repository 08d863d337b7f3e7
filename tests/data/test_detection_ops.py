"""flow.detection ops and flow.image.random_crop fed from job arguments (tensor lists and
ListNumpy sizes, as OneFlow's own tests feed them), against NumPy references."""

from __future__ import annotations

from typing import Tuple

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp

pytestmark = pytest.mark.usefixtures("fresh_session")


def _mirrored() -> flow.FunctionConfig:
    config = flow.FunctionConfig()
    config.default_logical_view(flow.scope.mirrored_view())
    return config


def _boxes(rng, count, w, h):
    xy = rng.uniform(0, [w / 2, h / 2], (count, 2))
    wh = rng.uniform(1, [w / 2, h / 2], (count, 2))
    return np.concatenate([xy, xy + wh], axis=1).astype(np.float32)


@pytest.mark.parametrize("code", [1, 16, 17])
def test_bbox_flip_and_scale(code):
    rng = np.random.default_rng(code)
    sizes = np.int32([[64, 48], [30, 80], [50, 50]])  # (w, h)
    scales = np.float32([[0.5, 2.0], [1.5, 1.25], [3.0, 0.75]])
    boxes = [_boxes(rng, n, w, h) for n, (w, h) in zip((3, 1, 5), sizes)]

    @flow.global_function(type="predict", function_config=_mirrored())
    def job(
        bbox_def: tp.ListListNumpy.Placeholder((3, 5, 4), dtype=flow.float),
        size_def: tp.ListNumpy.Placeholder((3, 2), dtype=flow.int32),
        scale_def: tp.ListNumpy.Placeholder((3, 2), dtype=flow.float),
    ) -> tp.ListListNumpy:
        bbox = flow.tensor_list_to_tensor_buffer(bbox_def)
        bbox = flow.object_bbox_flip(bbox, size_def, code)
        bbox = flow.detection.object_bbox_scale(bbox, scale_def)
        return flow.tensor_buffer_to_tensor_list(bbox, shape=(5, 4), dtype=flow.float)

    (got,) = job([[b[None] for b in boxes]], [sizes], [scales])
    for out, b, (w, h), s in zip(got, boxes, sizes, scales):
        want = b.copy()
        if code & 1:
            want[:, 0], want[:, 2] = w - b[:, 2] - 1, w - b[:, 0] - 1
        if code & 16:
            want[:, 1], want[:, 3] = h - b[:, 3] - 1, h - b[:, 1] - 1
        want *= np.tile(s, 2)
        np.testing.assert_allclose(out[0], want, rtol=1e-6)


def test_polygon_flip_scale_and_masks():
    # two images; image 0 has two objects (the second made of two squares), image 1 one
    squares = {
        0: [
            [(2, 2), (9, 2), (9, 6), (2, 6)],
            [(12, 1), (15, 1), (15, 4), (12, 4)],
            [(3, 10), (6, 10), (6, 13), (3, 13)],
        ],
        1: [[(0, 0), (4, 0), (4, 4), (0, 4)]],
    }
    owners = {0: [0, 1, 1], 1: [0]}  # object of each polygon
    points, index = [], []
    for image, polys in squares.items():
        pts, idx = [], []
        for p, (poly, obj) in enumerate(zip(polys, owners[image])):
            first = sum(1 for o in owners[image][:p] if o == obj)  # polygon number in object
            for k, pt in enumerate(poly):
                pts.append(pt)
                idx.append((k, first, obj))
        points.append(np.float32(pts)[None])
        index.append(np.int32(idx)[None])
    sizes = np.int32([[20, 16], [8, 8]])
    scales = np.float32([[1.0, 1.0], [2.0, 2.0]])

    @flow.global_function(type="predict", function_config=_mirrored())
    def job(
        poly_def: tp.ListListNumpy.Placeholder((2, 12, 2), dtype=flow.float),
        index_def: tp.ListListNumpy.Placeholder((2, 12, 3), dtype=flow.int32),
        size_def: tp.ListNumpy.Placeholder((2, 2), dtype=flow.int32),
        scale_def: tp.ListNumpy.Placeholder((2, 2), dtype=flow.float),
    ) -> Tuple[tp.ListListNumpy, tp.ListListNumpy]:
        poly = flow.tensor_list_to_tensor_buffer(poly_def)
        index = flow.tensor_list_to_tensor_buffer(index_def)
        poly = flow.object_segmentation_polygon_scale(poly, scale_def)
        poly = flow.detection.object_segmentation_polygon_flip(poly, size_def, 1)
        mask = flow.object_segmentation_polygon_to_mask(poly, index, size_def)
        return (
            flow.tensor_buffer_to_tensor_list(poly, shape=(12, 2), dtype=flow.float),
            flow.tensor_buffer_to_tensor_list(mask, shape=(2, 16, 20), dtype=flow.int8),
        )

    (flipped,), (masks,) = job([points], [index], [sizes], [scales])
    for got, pts, (w, _), s in zip(flipped, points, sizes, scales):
        want = pts[0] * s
        want[:, 0] = w - want[:, 0]
        np.testing.assert_allclose(got[0], want)
    for image, (got, (w, h)) in enumerate(zip(masks, sizes)):
        ref = np.zeros((len(set(owners[image])), h, w), np.int8)
        for poly, obj in zip(squares[image], owners[image]):
            pts = np.float32(poly) * scales[image]
            xs = w - pts[:, 0]
            y0, y1 = int(pts[:, 1].min()), int(pts[:, 1].max())
            ref[obj, y0 : y1 + 1, int(xs.min()) : int(xs.max()) + 1] = 1
        np.testing.assert_array_equal(got[0], ref)


def test_random_crop_windows_follow_their_limits_and_seed():
    rng = np.random.default_rng(0)
    images = [rng.random((1, h, w, 3)).astype(np.float32) for h, w in [(40, 30), (25, 50)]]

    def make(seed):
        flow.clear_default_session()

        @flow.global_function(type="predict", function_config=_mirrored())
        def job(x: tp.ListListNumpy.Placeholder((2, 40, 50, 3))) -> tp.ListListNumpy:
            crops = flow.image.random_crop(
                flow.tensor_list_to_tensor_buffer(x),
                seed=seed,
                random_area=[0.3, 0.6],
                random_aspect_ratio=[0.5, 2.0],
            )
            return flow.tensor_buffer_to_tensor_list(crops, shape=(40, 50, 3), dtype=flow.float)

        return job

    first = [make(7)([images])[0] for _ in range(2)]
    for crops in first:
        for crop, image in zip(crops, images):
            h, w = crop.shape[1:3]
            area = h * w / (image.shape[1] * image.shape[2])
            assert 0.25 <= area <= 0.65 and 0.45 <= w / h <= 2.2
            # the crop is a window of the image
            hits = [
                (y, x)
                for y in range(image.shape[1] - h + 1)
                for x in range(image.shape[2] - w + 1)
                if np.array_equal(image[0, y : y + h, x : x + w], crop[0])
            ]
            assert len(hits) == 1
    for a, b in zip(*first):  # the same seed gives the same windows
        np.testing.assert_array_equal(a, b)


def test_bad_instances_raise_errors_naming_the_op_and_instance():
    @flow.global_function(type="predict", function_config=_mirrored())
    def job(
        bbox_def: tp.ListListNumpy.Placeholder((2, 5, 5), dtype=flow.float),
        size_def: tp.ListNumpy.Placeholder((2, 2), dtype=flow.int32),
    ) -> tp.ListListNumpy:
        bbox = flow.object_bbox_flip(flow.tensor_list_to_tensor_buffer(bbox_def), size_def, 1)
        return flow.tensor_buffer_to_tensor_list(bbox, shape=(5, 5), dtype=flow.float)

    with pytest.raises(flow.data.TensorBufferError, match=r"object_bbox_flip: instance 1 must"):
        job(
            [[np.zeros((1, 2, 4), np.float32), np.zeros((1, 2, 5), np.float32)]],
            [np.int32([[4, 4], [4, 4]])],
        )


def test_degenerate_polygons_fill_a_pixel_or_a_line():
    from flowjob._src.data._detection import poly_to_mask

    # one object: a single point (polygon 0) and a horizontal two-point segment (polygon 1)
    points = np.float32([[3.4, 2.6], [1, 5], [6, 5]])
    index = np.int32([[0, 0, 0], [0, 1, 0], [1, 1, 0]])
    poly, idx = np.empty(1, object), np.empty(1, object)
    poly[0], idx[0] = points, index
    mask = poly_to_mask(poly, idx, np.int32([[8, 7]]))[0]
    ref = np.zeros((1, 7, 8), np.int8)
    ref[0, 3, 3] = 1  # (3.4, 2.6) rounds to x 3, y 3
    ref[0, 5, 1:7] = 1
    np.testing.assert_array_equal(mask, ref)


def test_masks_match_opencv_fillpoly_inside_the_image():
    """OneFlow filled masks with OpenCV's fillPoly: the same pixels, for polygons inside the
    image (convex or not, several per object, overlaps cancelling as even-odd fills do)."""
    cv2 = pytest.importorskip("cv2")
    from flowjob._src.data._detection import poly_to_mask

    rng = np.random.default_rng(11)
    for _ in range(100):
        polys = [rng.integers(0, [48, 40], (int(rng.integers(1, 8)), 2)) for _ in range(3)]
        points = np.concatenate(polys).astype(np.float32)
        index = np.int32([(k, p, 0) for p, poly in enumerate(polys) for k in range(len(poly))])
        buf, idx = np.empty(1, object), np.empty(1, object)
        buf[0], idx[0] = points, index
        mask = poly_to_mask(buf, idx, np.int32([[48, 40]]))[0][0]
        ref = np.zeros((40, 48), np.int8)
        cv2.fillPoly(ref, [p.astype(np.int32) for p in polys], 1, lineType=8)
        np.testing.assert_array_equal(mask, ref)
