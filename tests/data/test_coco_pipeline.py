"""flow.data.coco_reader and the image/detection ops on its tensor buffers, in jobs, against
NumPy and Pillow references computed here from the annotation json and the pixels."""

from __future__ import annotations

import io
import json
from typing import Tuple

import numpy as np
import pytest
from PIL import Image

import flowjob as flow
import flowjob.typing as tp

pytestmark = pytest.mark.usefixtures("fresh_session")

# (id, height, width); image 9 has only a crowd annotation and is dropped by default
IMAGES = [(3, 20, 30), (7, 36, 24), (9, 16, 16)]
ANNOS = [
    # id, image, category, bbox [x, y, w, h], polygons
    (1, 3, 5, [2.0, 3.0, 10.0, 8.0], [[2, 3, 11, 3, 11, 10, 2, 10]]),
    (2, 3, 2, [20.5, 1.0, 30.0, 4.0], [[20, 1, 28, 1, 28, 4, 20, 4], [1, 12, 5, 12, 5, 15, 1, 15]]),
    (3, 7, 2, [0.0, 0.0, 23.0, 35.0], [[0, 0, 22, 0, 22, 34, 0, 34]]),
]


def _jpeg(pixels: np.ndarray) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="JPEG", quality=90)
    return buf.getvalue()


@pytest.fixture
def coco(tmp_path):
    rng = np.random.default_rng(1)
    files = {}
    for image_id, h, w in IMAGES:
        files[image_id] = _jpeg(rng.integers(0, 256, (h, w, 3), dtype=np.uint8))
        (tmp_path / f"{image_id}.jpg").write_bytes(files[image_id])
    data = {
        "images": [
            {"id": i, "height": h, "width": w, "file_name": f"{i}.jpg"} for i, h, w in IMAGES
        ],
        "annotations": [
            {
                "id": a,
                "image_id": im,
                "category_id": c,
                "bbox": b,
                "segmentation": s,
                "iscrowd": 0,
                "area": 1.0,
            }
            for a, im, c, b, s in ANNOS
        ]
        + [
            {
                "id": 4,
                "image_id": 9,
                "category_id": 5,
                "bbox": [0, 0, 5, 5],
                "segmentation": {"counts": [], "size": [16, 16]},
                "iscrowd": 1,
            }
        ],
        "categories": [{"id": 5, "name": "five"}, {"id": 2, "name": "two"}],
    }
    path = tmp_path / "instances.json"
    path.write_text(json.dumps(data))
    return str(path), str(tmp_path), files


def _boxes(image_id: int, h: int, w: int) -> np.ndarray:
    out = []
    for _, im, _, (x, y, bw, bh), _ in ANNOS:
        if im == image_id:
            box = [x, y, x + max(bw - 1, 0), y + max(bh - 1, 0)]
            box = [min(max(v, 0), lim - 1) for v, lim in zip(box, (w, h, w, h))]
            out.append(box)
    return np.asarray(out, np.float32)


def _reader(coco, **kw):
    ann, image_dir, _ = coco
    kw.setdefault("shuffle", False)
    kw.setdefault("group_by_aspect_ratio", False)
    return flow.data.coco_reader(ann, image_dir, batch_size=2, name="coco", **kw)


def test_reader_outputs_follow_oneflow(coco):
    _, _, files = coco

    @flow.global_function(type="predict")
    def job() -> Tuple[
        tp.Numpy, tp.Numpy, tp.ListNumpy, tp.ListNumpy, tp.ListNumpy, tp.ListNumpy, tp.ListNumpy
    ]:
        image, image_id, size, bbox, label, segm, segm_index = _reader(coco)
        b0, b1 = flow.tensor_buffer_to_list_of_tensors(bbox, (4, 4), flow.float32, True)
        l0, l1 = flow.tensor_buffer_to_list_of_tensors(label, (4,), flow.int32, True)
        s0, _ = flow.tensor_buffer_to_list_of_tensors(segm, (16, 2), flow.float32, True)
        i0, _ = flow.tensor_buffer_to_list_of_tensors(segm_index, (16, 3), flow.int32, True)
        return image_id, size, b0, b1, l0, s0, i0

    image_id, size, b0, b1, l0, s0, i0 = job()
    np.testing.assert_array_equal(image_id, [3, 7])  # sorted ids, image 9 removed
    np.testing.assert_array_equal(size, [[20, 30], [36, 24]])  # (height, width)
    np.testing.assert_allclose(b0[0], _boxes(3, 20, 30))  # each at its real shape
    np.testing.assert_allclose(b1[0], _boxes(7, 36, 24))
    np.testing.assert_array_equal(l0[0], [2, 1])  # categories 5, 2 -> contiguous by id
    points = np.concatenate([np.reshape(p, (-1, 2)) for p in ANNOS[0][4] + ANNOS[1][4]])
    np.testing.assert_allclose(s0[0], points)
    index = [(k, 0, 0) for k in range(4)] + [(k, 0, 1) for k in range(4)]
    index += [(k, 1, 1) for k in range(4)]
    np.testing.assert_array_equal(i0[0], index)


def test_decode_flip_normalize_against_pillow(coco):
    _, _, files = coco
    mean, std = [10.0, 20.0, 30.0], [2.0, 4.0, 8.0]

    @flow.global_function(type="predict")
    def job() -> Tuple[tp.ListNumpy, tp.ListNumpy, tp.ListNumpy]:
        image = _reader(coco)[0]
        decoded = flow.image.decode(image, dtype=flow.float32)
        flipped = flow.image.flip(decoded, 1)
        normed = flow.image_normalize(flipped, std=std, mean=mean)
        a, b = flow.tensor_buffer_to_list_of_tensors(normed, (40, 40, 3), flow.float32, True)
        aligned = flow.image.batch_align(
            decoded, shape=(64, 64, 3), dtype=flow.float32, alignment=16
        )
        return a, b, aligned

    a, b, (aligned,) = job()
    refs = []
    for image_id, got in zip((3, 7), (a[0], b[0])):
        bgr = np.asarray(Image.open(io.BytesIO(files[image_id])).convert("RGB"))[:, :, ::-1]
        refs.append(bgr.astype(np.float32))
        want = (bgr[:, ::-1].astype(np.float32) - np.float32(mean)) / np.float32(std)
        np.testing.assert_allclose(got, want, rtol=1e-6)
    # (20, 30) and (36, 24): largest 36 x 30, rounded up to 48 x 32
    assert aligned.shape == (2, 48, 32, 3)
    for i, ref in enumerate(refs):
        h, w = ref.shape[:2]
        np.testing.assert_array_equal(aligned[i, :h, :w], ref)
        assert not aligned[i, h:].any() and not aligned[i, :, w:].any()


def test_resize_scale_flip_masks_against_numpy(coco):
    @flow.global_function(type="predict")
    def job() -> Tuple[tp.Numpy, tp.Numpy, tp.ListNumpy, tp.ListNumpy, tp.ListNumpy]:
        image, _, _, bbox, _, segm, segm_index = _reader(coco)
        image = flow.image.decode(image)
        image, new_size, scale = flow.image.target_resize(image, target_size=40, max_size=50)
        bbox = flow.detection.object_bbox_scale(bbox, scale)
        bbox = flow.object_bbox_flip(bbox, new_size, 1)
        segm = flow.object_segmentation_polygon_scale(segm, scale)
        segm = flow.detection.object_segmentation_polygon_flip(segm, new_size, 16)
        mask = flow.object_segmentation_polygon_to_mask(segm, segm_index, new_size)
        boxes, _ = flow.tensor_buffer_to_list_of_tensors(bbox, (4, 4), flow.float32, True)
        points, _ = flow.tensor_buffer_to_list_of_tensors(segm, (16, 2), flow.float32, True)
        masks, _ = flow.tensor_buffer_to_list_of_tensors(mask, (4, 64, 64), flow.int8, True)
        return new_size, scale, boxes, points, masks

    new_size, scale, (boxes,), (points,), (masks,) = job()
    # shorter side to 40, longer capped at 50, the other rounded half to even:
    # (h 20, w 30): w 60 > 50 -> w 50, h 33.3 -> 33; (h 36, w 24): h 60 > 50 -> h 50, w 33
    np.testing.assert_array_equal(new_size, [[50, 33], [33, 50]])
    np.testing.assert_allclose(scale, [[50 / 30, 33 / 20], [33 / 24, 50 / 36]], rtol=1e-6)
    w, h = 50, 33
    want = _boxes(3, 20, 30) * np.float32([50 / 30, 33 / 20, 50 / 30, 33 / 20])
    want[:, [0, 2]] = w - want[:, [2, 0]] - 1
    np.testing.assert_allclose(boxes, want, rtol=1e-6)
    pts = np.concatenate([np.reshape(p, (-1, 2)) for p in ANNOS[0][4] + ANNOS[1][4]])
    pts = pts.astype(np.float32) * np.float32([50 / 30, 33 / 20])
    pts[:, 1] = h - pts[:, 1]
    np.testing.assert_allclose(points, pts, rtol=1e-6)
    assert masks.shape == (2, h, w) and masks.dtype == np.int8
    rounded = np.rint(pts)
    # annotation 1: one axis-aligned rectangle, filled with its edges
    (x0, y0), (x1, y1) = rounded[[0, 2]].min(0), rounded[[0, 2]].max(0)
    ref = np.zeros((h, w), np.int8)
    ref[int(y0) : int(y1) + 1, int(x0) : int(x1) + 1] = 1
    np.testing.assert_array_equal(masks[0], ref)
    # annotation 2: two rectangles in one mask
    ref = np.zeros((h, w), np.int8)
    for k in (4, 8):
        (x0, y0), (x1, y1) = rounded[k : k + 4].min(0), rounded[k : k + 4].max(0)
        ref[int(y0) : int(y1) + 1, int(x0) : int(x1) + 1] = 1
    np.testing.assert_array_equal(masks[1], ref)


def test_triangle_mask_against_numpy_half_planes():
    from flowjob._src.data._detection import poly_to_mask

    tri = np.float32([[2, 2], [25, 5], [8, 18]])
    index = np.int32([[0, 0, 0], [1, 0, 0], [2, 0, 0]])
    buffer = np.empty(1, object)
    buffer[0] = tri
    idx = np.empty(1, object)
    idx[0] = index
    mask = poly_to_mask(buffer, idx, np.int32([[30, 20]]))[0][0]
    ys, xs = np.mgrid[0:20, 0:30]

    def inside(margin):  # signed distance from each edge, counter-clockwise order
        ok = np.ones((20, 30), bool)
        for (ax, ay), (bx, by) in zip(tri, np.roll(tri, -1, 0)):
            cross = (bx - ax) * (ys - ay) - (by - ay) * (xs - ax)
            ok &= cross / np.hypot(bx - ax, by - ay) >= margin
        return ok

    assert mask[inside(1.0)].all()  # clearly inside: filled
    assert not mask[~inside(-1.0)].any()  # clearly outside: empty


def test_grouping_and_bad_input_errors(coco, tmp_path):
    ann, image_dir, _ = coco

    @flow.global_function(type="predict")
    def job() -> tp.Numpy:
        return _reader(coco, remove_images_without_annotations=False, group_by_aspect_ratio=True)[1]

    # OneFlow's GroupBatchDataset, groups by height // width: image 3 (20 // 30) is 0,
    # images 7 and 9 are 1. The first batch takes group 0 from image 3; 7 and 9 wait while
    # the order wraps into the next epoch for another group-0 image; they come next, then
    # the second epoch goes on with 7 and 9.
    np.testing.assert_array_equal(job(), [3, 3])
    np.testing.assert_array_equal(job(), [7, 9])
    np.testing.assert_array_equal(job(), [7, 9])

    bad = tmp_path / "bad.json"
    data = json.loads(open(ann).read())
    data["annotations"][0]["segmentation"] = [[1, 2, 3, 4]]
    bad.write_text(json.dumps(data))
    with pytest.raises(flow.errors.OpError, match=r"bad.json: annotation 1 has a polygon"):

        @flow.global_function(type="predict")
        def bad_job() -> tp.Numpy:
            return flow.data.coco_reader(str(bad), image_dir, 2, name="c")[1]

        bad_job()


def test_missing_image_and_undecodable_bytes_name_the_image(coco):
    ann, image_dir, _ = coco
    import os

    os.remove(os.path.join(image_dir, "7.jpg"))

    @flow.global_function(type="predict")
    def job() -> tp.Numpy:
        return _reader(coco)[1]

    with pytest.raises(
        flow.data.COCOError, match=r"image 7 of .*json: image file .*7.jpg does not"
    ):
        job()

    with open(os.path.join(image_dir, "7.jpg"), "wb") as f:
        f.write(b"not a jpeg")
    flow.clear_default_session()

    @flow.global_function(type="predict")
    def decode() -> tp.ListNumpy:
        image = flow.image.decode(_reader(coco)[0])
        return flow.image.batch_align(image, (64, 64, 3), flow.uint8, 0)

    # the reader names the file and the image id (not the decode op's "instance 1")
    with pytest.raises(flow.data.COCOError, match=r"image 7 of .*json: .*7.jpg: cannot decode"):
        decode()
