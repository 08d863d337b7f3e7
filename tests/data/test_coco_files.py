"""The COCO reader's files: bboxes must be finite numbers, ``file_name`` stays inside the image
folder, and unreadable or undecodable images are named with their file and image id."""

from __future__ import annotations

import io
import json
import os

import numpy as np
import pytest
from PIL import Image

import flowjob as flow
import flowjob.typing as tp


def _write(tmp_path, bbox=(1.0, 2.0, 10.0, 12.0), file_name="7.jpg", image_bytes=None):
    images = tmp_path / "images"
    images.mkdir(exist_ok=True)
    if image_bytes is None:
        buf = io.BytesIO()
        Image.fromarray(np.zeros((16, 20, 3), np.uint8)).save(buf, format="JPEG")
        image_bytes = buf.getvalue()
    (images / "7.jpg").write_bytes(image_bytes)
    data = {
        "images": [{"id": 7, "height": 16, "width": 20, "file_name": file_name}],
        "annotations": [
            {"id": 31, "image_id": 7, "category_id": 1, "bbox": list(bbox), "iscrowd": 0}
        ],
        "categories": [{"id": 1}],
    }
    path = tmp_path / "instances.json"
    path.write_text(json.dumps(data))  # json.dumps writes NaN for float("nan"), as some tools do
    return str(path), str(images)


def _job(ann, images):
    @flow.global_function(type="predict")
    def job() -> tp.Numpy:
        return flow.data.coco_reader(ann, images, batch_size=1, shuffle=False, name="coco")[1]

    return job


@pytest.mark.parametrize("value", ["3", float("nan"), float("inf"), None, True])
def test_a_bbox_value_that_is_not_a_finite_number_names_file_image_and_annotation(tmp_path, value):
    ann, images = _write(tmp_path, bbox=(1.0, value, 10.0, 12.0))
    with pytest.raises(flow.errors.OpError) as info:
        _job(ann, images)()
    text = str(info.value)
    assert ann in text and "annotation 31 (image 7)" in text and "finite numbers" in text


def test_a_good_file_reads(tmp_path):
    ann, images = _write(tmp_path)
    np.testing.assert_array_equal(_job(ann, images)(), [7])


@pytest.mark.parametrize("name, why", [("../secret.jpg", "leaves"), ("/etc/hostname", "absolute")])
def test_file_name_cannot_leave_the_image_folder(tmp_path, name, why):
    (tmp_path / "secret.jpg").write_bytes(b"not for the reader")
    ann, images = _write(tmp_path, file_name=name)
    job = _job(ann, images)
    with pytest.raises(flow.data.DecodeError, match=f"image 7 of {ann}: file_name .*{why}"):
        job()


def test_a_symlinked_file_name_out_of_the_folder_is_refused(tmp_path):
    ann, images = _write(tmp_path, file_name="link.jpg")
    os.symlink("/dev/zero", os.path.join(images, "link.jpg"))
    with pytest.raises(flow.data.DecodeError, match="resolves outside"):
        _job(ann, images)()


def test_an_undecodable_image_names_its_file_and_image_id(tmp_path):
    ann, images = _write(tmp_path, image_bytes=b"\xff\xd8 this is no jpeg")
    file = os.path.join(images, "7.jpg")
    with pytest.raises(flow.data.DecodeError, match=f"image 7 of {ann}: {file}: cannot decode"):
        _job(ann, images)()
