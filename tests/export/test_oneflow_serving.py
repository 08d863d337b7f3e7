"""OneFlow v0.4.0's own serving tests (``oneflow/python/test/serving``), run by flowjob.

The files are read from a OneFlow clone (``FLOWJOB_ONEFLOW_SRC``; ``git archive`` of v0.4.0
into a temporary folder) and run unchanged with ``flowjob run``. Each needs private data
under ``/dataset`` (trained checkpoints, ImageNet/LFW records, a photo); where that data is
absent a small launcher of ours stands in for it before the file's own test runs: the
checkpoint becomes the model's freshly initialized variables saved with
``flow.checkpoint.save``, the record readers give random images of the shapes the test asks
for, the photo is a random JPEG. Everything else (model code, save, load, compare) is the
file's.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.third_party import skip_if_missing_module
from tests.timeouts import scaled

REPO = Path(__file__).resolve().parents[2]
REVISION = "v0.4.0"
FOLDER = "oneflow/python/test/serving"
CLONE = os.environ.get("FLOWJOB_ONEFLOW_SRC")
if not CLONE:
    pytest.skip(
        "needs a OneFlow clone: git clone https://github.com/Oneflow-Inc/oneflow and "
        "set FLOWJOB_ONEFLOW_SRC=<clone>",
        allow_module_level=True,
    )

# Launcher prelude: random stand-ins for the record datasets (same shapes and dtypes).
_PRELUDE = """
import os, sys, unittest
import numpy as np
import oneflow as flow

rng = np.random.default_rng(0)


class RandomImages:
    def __init__(self, batch_size=4, image_resize_size=224, data_format="NCHW",
                 image_width=112, image_height=112, **_):
        if "image_resize_size" in STANDIN_ARGS:
            h = w = image_resize_size
        else:
            h, w = image_height, image_width
        shape = (3, h, w) if data_format == "NCHW" else (h, w, 3)
        self.shape = (batch_size, *shape)

    def load_batchs(self, num):
        images = [rng.standard_normal(self.shape).astype(np.float32) for _ in range(num)]
        labels = [rng.integers(0, 1000, self.shape[0]).astype(np.int32) for _ in range(num)]
        return images, labels


def initial_checkpoint(make_job, path):
    make_job()
    flow.checkpoint.save(path)
    flow.clear_default_session()
"""

# file -> launcher body (after the prelude); `t` is the imported test module.
_LAUNCHERS = {
    "test_resnet_save_and_load.py": """
STANDIN_ARGS = ("image_resize_size",)
import test_resnet_save_and_load as t
t.ImageNetRecordDataset = RandomImages
initial_checkpoint(lambda: t.make_resnet_infer_func(t.DEFAULT_BATCH_SIZE,
                   (3, t.DEFAULT_IMAGE_SIZE, t.DEFAULT_IMAGE_SIZE)), "resnet_initial")
t.DEFAULT_CHECKPOINT_DIR = os.path.abspath("resnet_initial")
""",
    "test_insightface_save_and_load.py": """
STANDIN_ARGS = ()
import test_insightface_save_and_load as t
t.FaceEmoreRecordDataset = RandomImages
case = t.TestSaveAndLoadModel
initial_checkpoint(lambda: t.make_insightface_resnet100_func(
    case.BATCH_SIZE, case.IMAGE_SIZE, case.IMAGE_SIZE), "insightface_initial")
case.MODEL_DIR = os.path.abspath("insightface_initial")
""",
    "test_style_transfer_save_and_load.py": """
STANDIN_ARGS = ()
import cv2
import test_style_transfer_save_and_load as t
cv2.imwrite("content.jpg", rng.integers(0, 256, (48, 64, 3)).astype(np.uint8))
initial_checkpoint(lambda: t.make_style_transfer(48, 64), "style_initial")
t.TestSaveAndLoadModel.INPUT_IMAGE_FILE = os.path.abspath("content.jpg")
t.TestSaveAndLoadModel.CHECKPOINT_DIR = os.path.abspath("style_initial")
""",
    "test_alexnet_save_and_load.py": """
STANDIN_ARGS = ("image_resize_size",)
import test_alexnet_save_and_load as t
t.ImageNetRecordDataset = RandomImages
initial_checkpoint(lambda: t.make_alexnet_infer_func(t.DEFAULT_BATCH_SIZE,
                   (t.DEFAULT_IMAGE_SIZE, t.DEFAULT_IMAGE_SIZE, 3)), "alexnet_initial")
t.DEFAULT_CHECKPOINT_DIR = os.path.abspath("alexnet_initial")
""",
}
_RUN = """
sys.argv = sys.argv[:1]
unittest.main(module=t, verbosity=2)
"""

# Known failures: (cause, text its output must show). The alexnet file saves (with its
# signature) and then rebuilds the job from the OneFlow op list it reads from
# saved_model.prototxt (InferenceSession.open/compile); flowjob saved models hold compiled
# StableHLO programs instead, and no OneFlow op lists.
KNOWN_FAILURES = {
    "test_alexnet_save_and_load.py": (
        "reads OneFlow op lists from saved_model.prototxt (sess.compile)",
        "No such file or directory: 'alexnet_models/1/saved_model.prototxt'",
    )
}


@pytest.fixture(scope="module")
def serving_dir(tmp_path_factory) -> Path:
    done = subprocess.run(
        ["git", "-C", CLONE, "archive", "--format=tar", REVISION, FOLDER],
        capture_output=True,
        timeout=scaled(300),
    )
    if done.returncode != 0:
        pytest.fail(
            f"git archive {REVISION} {FOLDER} in {CLONE} failed: "
            f"{done.stderr.decode(errors='replace').strip()}"
        )
    root = tmp_path_factory.mktemp("oneflow_serving")
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as tar:
        # the "data" filter (no links out, no device files) where this Python has it
        tar.extractall(root, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    return root / FOLDER


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(_LAUNCHERS))
def test_oneflow_serving_file(serving_dir, name, tmp_path):
    assert (serving_dir / name).is_file(), f"{name} is not in {FOLDER} of {REVISION}"
    work = tmp_path / "work"
    work.mkdir()
    for path in serving_dir.iterdir():  # the file imports its model modules from its folder
        (work / path.name).write_bytes(path.read_bytes())
    launcher = work / "launch_standins.py"
    launcher.write_text(_PRELUDE + _LAUNCHERS[name] + _RUN, encoding="utf-8")
    # The files compare served outputs with the job's at np.allclose's defaults (OneFlow ran
    # the same kernels twice). A saved model is a portable XLA program; where the job ran
    # oneDNN convolutions instead (the measured choice on some machines), the two differ by
    # float32 rounding, within the documented 2e-4 of the output's scale but not allclose's
    # 1e-5 (insightface: features ~4e12 from fresh weights). XLA's kernels in both.
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=str(REPO), FLOWJOB_CONV_KERNEL="xla")
    proc = subprocess.run(
        [sys.executable, "-m", "flowjob", "run", str(launcher)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(1800),
    )
    output = proc.stdout + proc.stderr
    skip_if_missing_module(output, name, beside=[work])
    if name in KNOWN_FAILURES:
        cause, shown = KNOWN_FAILURES[name]
        assert proc.returncode != 0, f"{name} passes now: remove it from KNOWN_FAILURES"
        assert shown in output, output[-6000:]  # it fails where expected, not earlier
        pytest.xfail(cause)
    assert proc.returncode == 0, output[-6000:]
    assert "Ran 1 test" in output and "OK" in output, output[-3000:]
