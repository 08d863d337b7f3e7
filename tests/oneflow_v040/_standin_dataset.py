"""Stand-ins for the private data three of OneFlow v0.4.0's eager module tests read.

``modules/test_dataset.py``, ``modules/test_resnet50_with_bn.py`` and
``modules/test_resnet50_without_bn.py`` read OneFlow's ``/dataset/imagenette``: OFRecord parts
of JPEGs and labels (``ofrecord/part-00000``), three ground-truth PNGs beside them, and two
ResNet-50 checkpoints (``resnet50_models``, ``resnet50_pretrained``). ``prepare_standin`` writes
small stand-ins and a copy of the test file whose ``"/dataset/imagenette"`` paths point at
them; the tests themselves run unchanged, except that ``test_resnet50_without_bn.py``'s
literal losses (OneFlow's, on its private data) become a reference's on the stand-in.

- The records (``standin_records``, written by flowjob's OFRecord writer): record 0 is the
  image the ground truths describe, labelled 5 as the test expects, a 512 x 640 JPEG; the 63
  others (for the ResNet tests) have a shorter side of 512 and a longer one of 512 to 768,
  their colours spread around one that follows their label. Every image is made of 16 x 16
  blocks of one colour, saved without chroma subsampling, so JPEG decoders give blocks of one
  colour (OpenCV's and Pillow's, flowjob's decoder, are checked equal). Resizing the shorter
  side to 256 then halves each image exactly, which any area-averaging resize does alike
  (OpenCV's ``INTER_AREA``, which OneFlow's "auto" interpolation picks for a shrink, Pillow's
  box filter, plain 2 x 2 means), and the centre crop of 224 cuts through blocks, so a crop
  one pixel off shows.
- ``pipeline`` is the test's pipeline computed independently: OpenCV decodes and resizes
  (checked equal to NumPy 2 x 2 means), NumPy crops and normalizes with OneFlow's kernel
  formula (``(x - mean) * (1 / std)`` in float32, offsets truncated). The ground truths are
  record 0 through it and the test's own recovery (``* std + mean``, RGB to BGR, uint8); the
  ResNet reference's inputs are all records through it (``_standin_resnet``).
- ``resnet50_models`` (with batch normalization): the test folder's own ``resnet50`` model
  freshly initialized, saved by flowjob's ``flow.save`` in OneFlow's layout, made in a
  ``flowjob run`` subprocess (``write_checkpoint_standin``).
- ``resnet50_pretrained`` (identity norm layers): weights that keep the network
  well-conditioned without normalization, drawn with NumPy and written in OneFlow's layout
  without flowjob (``_standin_checkpoint``); the losses of the test's 100 steps from them are
  PyTorch's, cached with the SHA-256 of their inputs (``_standin_resnet``).
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from ._standin_checkpoint import resnet50_fixup, write_checkpoint

REPO = Path(__file__).resolve().parents[2]
PRIVATE = "/dataset/imagenette"
# file -> the checkpoints it loads (folder name -> norm layer of the model saved there)
STANDIN_FILES: dict[str, dict[str, str]] = {
    "test_dataset.py": {},
    "test_resnet50_with_bn.py": {"resnet50_models": "BatchNorm2d"},
    "test_resnet50_without_bn.py": {"resnet50_pretrained": "fixup"},
}
RGB_MEAN = [123.68, 116.779, 103.939]
RGB_STD = [58.393, 57.12, 57.375]
FIRST_LABEL = 5  # test_dataset.py: label.numpy()[0] == 5
BLOCK = 16
FIRST_SHAPE = (512, 640)  # (height, width): the shorter side halves to 256
CROP = 224
RECORDS = 64  # two batches of 32 for the ResNet tests
CLASSES = 10


def needs_standin(path: str | os.PathLike) -> bool:
    """Whether the test file ``path`` reads OneFlow's private ``/dataset/imagenette``."""
    return PRIVATE in Path(path).read_text(encoding="utf-8")


def _jpeg(pixels: np.ndarray) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(pixels).save(out, "JPEG", quality=95, subsampling=0)
    return out.getvalue()


def _first_image(rng: np.random.Generator) -> np.ndarray:
    h, w = FIRST_SHAPE
    colors = rng.integers(0, 256, (h // BLOCK, w // BLOCK, 3), np.uint8)
    return np.repeat(np.repeat(colors, BLOCK, axis=0), BLOCK, axis=1)


def _labelled_image(rng: np.random.Generator, label: int) -> np.ndarray:
    """Blocks as in the first image, their colours spread around one that follows ``label``;
    the shorter side is 512 and the longer one a multiple of 64, either way round."""
    short, long = 512, int(rng.choice([512, 576, 640, 704, 768]))
    h, w = (short, long) if rng.random() < 0.5 else (long, short)
    hue = np.array([(label * 97) % 256, (label * 53 + 80) % 256, (label * 29 + 160) % 256])
    colors = np.clip(hue + rng.normal(0, 40, (h // BLOCK, w // BLOCK, 3)), 0, 255)
    return np.repeat(np.repeat(colors.astype(np.uint8), BLOCK, axis=0), BLOCK, axis=1)


def standin_records(seed: int = 0) -> tuple[list[bytes], np.ndarray]:
    """The stand-in's ``RECORDS`` encoded JPEGs and their int32 labels, drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    labels = [FIRST_LABEL] + [int(rng.integers(CLASSES)) for _ in range(RECORDS - 1)]
    images = [_jpeg(_first_image(rng))]
    images += [_jpeg(_labelled_image(rng, label)) for label in labels[1:]]
    return images, np.asarray(labels, np.int32)


def pipeline(encoded: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The test's pipeline on one JPEG, computed independently: (decoded RGB, resized so its
    shorter side is 256, centre crop of 224 normalized as HWC float32). OpenCV decodes (checked
    equal to Pillow, flowjob's decoder) and resizes (checked equal to NumPy 2 x 2 means);
    NumPy crops and normalizes with OneFlow's kernel formula (``(x - mean) * (1 / std)`` in
    float32, offsets truncated)."""
    import cv2
    from PIL import Image

    bgr = cv2.imdecode(np.frombuffer(encoded, np.uint8), cv2.IMREAD_COLOR)
    decoded = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
    if not np.array_equal(decoded, np.asarray(Image.open(io.BytesIO(encoded)).convert("RGB"))):
        raise AssertionError("stand-in image: OpenCV and Pillow decode it differently")
    h, w = decoded.shape[:2]
    size = (w * 256 // min(h, w), h * 256 // min(h, w))  # exactly half: see the docstring
    resized = cv2.resize(decoded, size, interpolation=cv2.INTER_AREA)
    means = decoded.reshape(size[1], 2, size[0], 2, 3).mean(axis=(1, 3))
    if not np.array_equal(resized, means):  # the reference must be unambiguous
        raise AssertionError("stand-in image: OpenCV's area resize differs from 2x2 means")
    y = int(np.float32(size[1] - CROP) * np.float32(0.5))
    x = int(np.float32(size[0] - CROP) * np.float32(0.5))
    crop = resized[y : y + CROP, x : x + CROP].astype(np.float32)
    inv_std = np.float32(1) / np.asarray(RGB_STD, np.float32)
    return decoded, resized, (crop - np.asarray(RGB_MEAN, np.float32)) * inv_std


def ground_truths(encoded: bytes) -> dict[str, np.ndarray]:
    """The three PNGs of ``test_dataset.py`` for the first record (arrays as cv2.imread
    gives them back): decoded RGB, resized, and the cropped-normalized image recovered."""
    import cv2

    decoded, resized, normalized = pipeline(encoded)
    recovered = normalized.astype(np.float64) * RGB_STD + RGB_MEAN  # the test's recovery
    val = cv2.cvtColor(np.float32(recovered), cv2.COLOR_RGB2BGR).astype(np.uint8)
    return {
        "gt_tensor_buffer_image.png": decoded,
        "gt_tensor_buffer_resized_image.png": resized,
        "gt_val_image.png": val,
    }


def write_ofrecord_standin(folder: str | os.PathLike, seed: int = 0) -> Path:
    """``folder/ofrecord``: ``part-00000`` with ``RECORDS`` records (``encoded`` JPEG bytes,
    ``class/label`` int32) and the ground-truth PNGs; returns that folder."""
    import cv2

    import flowjob as flow

    images, labels = standin_records(seed)
    out = Path(folder) / "ofrecord"
    flow.data.write_ofrecord(
        out, {"encoded": images, "class/label": labels}, part_name_suffix_length=5
    )
    for name, pixels in ground_truths(images[0]).items():
        if not cv2.imwrite(str(out / name), pixels):
            raise OSError(f"could not write {out / name}")
    return out


_MAKE_CHECKPOINT = """
import sys
import oneflow.experimental as flow
sys.path.insert(0, {modules!r})
import resnet50_model

norm = flow.nn.BatchNorm2d if {norm!r} == "BatchNorm2d" else resnet50_model.FakeBN
model = resnet50_model.resnet50(replace_stride_with_dilation=[False, False, False],
                                norm_layer=norm)
flow.save({{k: v.numpy() for k, v in model.state_dict().items()}}, {path!r})
"""


def write_checkpoint_standin(
    folder: str | os.PathLike, modules: str | os.PathLike, name: str, norm: str
) -> Path:
    """``folder/<name>``: ``modules/resnet50_model.py``'s ResNet-50 (``norm``:
    ``"BatchNorm2d"`` or ``"FakeBN"``) freshly initialized, saved by ``flow.save`` in OneFlow's
    layout from a ``flowjob run`` subprocess (which provides ``import oneflow``)."""
    path = Path(folder) / name
    script = Path(folder) / f"make_{name}.py"
    script.write_text(
        _MAKE_CHECKPOINT.format(modules=str(modules), norm=norm, path=str(path)), "utf-8"
    )
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=str(REPO))
    done = subprocess.run(
        [sys.executable, "-m", "flowjob", "run", str(script)],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"making the stand-in checkpoint {name} failed:\n{(done.stdout + done.stderr)[-4000:]}"
        )
    return path


def prepare_standin(path: str | os.PathLike, work: str | os.PathLike) -> Path:
    """For the test file ``path`` (in its extracted ``modules/`` folder): writes the data it
    reads under ``work/imagenette`` and copies the folder's helper modules and the file, its
    ``"/dataset/imagenette"`` paths pointing there, into ``work``; returns the copy (same
    name), to run in place of ``path``. A file that reads no private data is returned as is.
    """
    path, work = Path(path), Path(work)
    if not needs_standin(path):
        return path
    root = work / "imagenette"
    root.mkdir(parents=True, exist_ok=True)
    if not (root / "ofrecord").is_dir():
        write_ofrecord_standin(root)
    for name, norm in STANDIN_FILES.get(path.name, {}).items():
        if (root / name).is_dir():
            continue
        if norm == "fixup":  # NumPy weights in OneFlow's layout (_standin_checkpoint)
            write_checkpoint(root / name, resnet50_fixup())
        else:
            write_checkpoint_standin(root, path.parent, name, norm)
    for helper in path.parent.glob("*.py"):  # resnet50_model.py, test_util.py...
        if not helper.name.startswith("test_") or helper.name == "test_util.py":
            shutil.copy(helper, work / helper.name)
    text = path.read_text(encoding="utf-8").replace(PRIVATE, str(root))
    if path.name == "test_resnet50_without_bn.py":  # OneFlow's losses -> PyTorch's
        from ._standin_resnet import reference_losses, with_losses

        text = with_losses(text, reference_losses(root / "resnet50_pretrained"))
    copy = work / path.name
    copy.write_text(text, encoding="utf-8")
    return copy


if __name__ == "__main__":  # python -m tests.oneflow_v040._standin_dataset MODULES_FILE WORK
    print(prepare_standin(sys.argv[1], sys.argv[2]))
