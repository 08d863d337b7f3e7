"""Stand-ins for the private data of two scripts of OneFlow v0.4.0's ``customized/`` folder.

Neither script checks a value (they print and save what they compute), so the bar is that
each runs to its end on data of the shape and kind it reads:

- ``new_data_pre.py`` reads ``/dataset/imagenet_16_same_pics/ofrecord`` twice: a training
  job (random crop decoder, resize to 224 x 224, coin-flip mirror, normalize) reads part
  ``part-0`` (the reader's default name) and an evaluation job (resize shorter side to 256,
  centre crop 224) reads ``part-00000`` (``part_name_suffix_length=5``). The stand-in: 16
  JPEGs of ImageNet-like sizes with labels below 1000, in both part files, written by
  flowjob's OFRecord writer; and the folder ``output/`` its ``np.save`` calls write into.
- ``ccrelu_alexnet.py`` trains an AlexNet (no biases, average pooling, the ``ccrelu`` test
  op) for 10 steps from ``/dataset/PNGS/PNG227/of_record_repeated`` (32 parts
  ``part-0``...``part-31``, images resized to 227 x 227, labels of 1001 classes) and loads
  its variables from ``/dataset/PNGS/cnns_model_for_test/alexnet/models/of_model_bk``. The
  stand-in: 64 PNGs of 227 x 227, two a part, and a checkpoint of the eight variables in
  OneFlow's layout drawn with NumPy from a seed (``alexnet_weights``: He-normal, the first
  convolution scaled to pixels that are centred but not divided by a deviation, and a small
  last layer, so the losses stay finite and near log(1001)).

``prepare_customized`` writes them into the run's working folder and returns a copy of the
script whose ``"/dataset/`` paths point there; the scripts run unchanged otherwise.
"""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import numpy as np

from ._standin_checkpoint import write_checkpoint

IMAGENET_SIZES = ((375, 500), (500, 375), (333, 500), (500, 333), (400, 400))
ALEXNET_CONVS = (  # name, filters, kernel size (input channels follow)
    ("conv1", 64, 11),
    ("conv2", 192, 5),
    ("conv3", 384, 3),
    ("conv4", 384, 3),
    ("conv5", 256, 3),
)
ALEXNET_DENSE = (("fc1", 4096), ("fc2", 4096), ("fc3", 1001))
ALEXNET_FEATURES = 256 * 6 * 6  # pool5 of a 227 x 227 input, flattened
PIXEL_SCALE = 64.0  # the first convolution's input: pixels less their mean, about this large


def _encode(pixels: np.ndarray, kind: str) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(pixels).save(out, kind, **({"quality": 90} if kind == "JPEG" else {}))
    return out.getvalue()


def _image(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Smooth colour gradients plus noise: something a decoder and resizer work on."""
    y, x = np.mgrid[0:h, 0:w] / max(h, w)
    base = rng.uniform(0, 255, 3) * (0.5 + 0.5 * np.stack([x, y, 1 - x], -1))
    return np.clip(base + rng.normal(0, 20, (h, w, 3)), 0, 255).astype(np.uint8)


def write_imagenet_16(folder: str | os.PathLike, seed: int = 0) -> Path:
    """``folder``: 16 JPEG records (``encoded``, ``class/label`` int32) in ``part-00000`` and
    the same file as ``part-0``, without flowjob's manifest; returns ``folder``."""
    import flowjob as flow

    rng = np.random.default_rng(seed)
    sizes = [IMAGENET_SIZES[i % len(IMAGENET_SIZES)] for i in range(16)]
    images = [_encode(_image(rng, h, w), "JPEG") for h, w in sizes]
    labels = rng.integers(0, 1000, 16).astype(np.int32)
    folder = Path(folder)
    flow.data.write_ofrecord(
        folder, {"encoded": images, "class/label": labels}, part_name_suffix_length=5
    )
    shutil.copy(folder / "part-00000", folder / "part-0")
    # flowjob's manifest names one part; OneFlow's folders have none (and two names here)
    (folder / "_ofrecord_manifest.json").unlink()
    return folder


def write_png227(folder: str | os.PathLike, seed: int = 0, parts: int = 32) -> Path:
    """``folder``: ``2 * parts`` PNG records of 227 x 227 (labels below 1001) in ``parts``
    files ``part-0``...; returns ``folder``."""
    import flowjob as flow

    rng = np.random.default_rng(seed)
    images = [_encode(_image(rng, 227, 227), "PNG") for _ in range(2 * parts)]
    labels = rng.integers(0, 1001, 2 * parts).astype(np.int32)
    flow.data.write_ofrecord(folder, {"encoded": images, "class/label": labels}, part_num=parts)
    return Path(folder)


def alexnet_shapes() -> dict[str, tuple[int, ...]]:
    """``ccrelu_alexnet.py``'s eight variables (``<layer>-weight``) and their shapes."""
    shapes: dict[str, tuple[int, ...]] = {}
    channels = 3
    for name, filters, k in ALEXNET_CONVS:
        shapes[f"{name}-weight"] = (filters, channels, k, k)
        channels = filters
    features = ALEXNET_FEATURES
    for name, units in ALEXNET_DENSE:
        shapes[f"{name}-weight"] = (units, features)
        features = units
    return shapes


def alexnet_weights(seed: int = 0) -> dict[str, np.ndarray]:
    """The stand-in values of ``alexnet_shapes``' variables, float32, drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, shape in alexnet_shapes().items():
        std = np.sqrt(2.0 / np.prod(shape[1:]))
        if name == "conv1-weight":
            std /= PIXEL_SCALE
        elif name == "fc3-weight":
            std *= 0.1
        out[name] = (rng.standard_normal(shape, np.float32) * np.float32(std)).astype(np.float32)
    return out


def _point_at(path: Path, work: Path, root: Path) -> Path:
    text = path.read_text(encoding="utf-8").replace('"/dataset/', f'"{root}/')
    copy = work / path.name
    copy.write_text(text, encoding="utf-8")
    return copy


def prepare_customized(path: str | os.PathLike, work: str | os.PathLike) -> Path:
    """For ``customized/new_data_pre.py`` or ``customized/ccrelu_alexnet.py``: writes its
    stand-in under ``work/dataset`` and returns a copy of it (in ``work``) reading there."""
    path, work = Path(path), Path(work)
    root = work / "dataset"
    if path.name == "new_data_pre.py":
        write_imagenet_16(root / "imagenet_16_same_pics" / "ofrecord")
        (work / "output").mkdir(exist_ok=True)  # where the script saves its arrays
    elif path.name == "ccrelu_alexnet.py":
        write_png227(root / "PNGS" / "PNG227" / "of_record_repeated")
        models = root / "PNGS" / "cnns_model_for_test" / "alexnet" / "models"
        write_checkpoint(models / "of_model_bk", alexnet_weights())
    else:
        raise ValueError(f"prepare_customized: no stand-in for {path.name}")
    return _point_at(path, work, root)
