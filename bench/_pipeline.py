"""The image input pipeline of OneFlow-Benchmark's ResNet training (issue 35): JPEG OFRecords
-> random crop -> resize to 224x224 -> crop, mirror and normalize into NCHW float batches of 32,
against PyTorch's DataLoader with Pillow and the same transforms (``num_workers`` = cores), and
against ``tf.data`` where a Python with TensorFlow is at hand (this one, or ``BENCH_TF_PYTHON``)."""

from __future__ import annotations

import importlib.util
import io
import os
import sys
import tempfile
import time

import numpy as np

from . import _harness as H
from ._models import Variant
from ._sections import Section, goal, rate_cells, table

BATCH = 32
MIN_BATCHES = 24  # per segment
IMAGES = 160
SIZE = 224
MEAN = [123.68, 116.779, 103.939]  # OneFlow-Benchmark's RGB mean and std
STD = [58.393, 57.12, 57.375]


def _jpegs(n: int) -> list[bytes]:
    """ImageNet-sized photographs stand-ins: smooth colour fields plus noise, 500x375 JPEG."""
    from PIL import Image

    rng = np.random.default_rng(0)
    out = []
    yy, xx = np.mgrid[0:375, 0:500]
    for i in range(n):
        base = np.stack([np.sin(xx / (20 + i % 7) + c) * 60 + yy / 3 for c in range(3)], -1)
        pixels = np.clip(base + 128 + rng.normal(0, 12, base.shape), 0, 255).astype(np.uint8)
        buf = io.BytesIO()
        Image.fromarray(pixels).save(buf, format="JPEG", quality=90)
        out.append(buf.getvalue())
    return out


def write_data(folder: str) -> None:
    from flowjob.data import write_ofrecord

    images = _jpegs(IMAGES)
    labels = np.arange(IMAGES, dtype=np.int32).reshape(-1, 1) % 1000
    write_ofrecord(os.path.join(folder, "ofrecord"), {"encoded": images, "class/label": labels})
    os.makedirs(os.path.join(folder, "jpeg"))
    for i, data in enumerate(images):
        with open(os.path.join(folder, "jpeg", f"{i:05d}_{labels[i, 0]}.jpg"), "wb") as f:
            f.write(data)


def flowjob_variant(folder: str) -> Variant:
    import flowjob as flow
    import flowjob.typing as tp

    @flow.global_function(type="predict")
    def pipeline() -> tp.Numpy:
        with flow.scope.placement("cpu", "0:0"):
            record = flow.data.ofrecord_reader(
                os.path.join(folder, "ofrecord"), batch_size=BATCH, random_shuffle=True
            )
            image = flow.data.OFRecordImageDecoderRandomCrop(record, "encoded", color_space="RGB")
            resized = flow.image.Resize(image, target_size=[SIZE, SIZE])[0]
            flow.data.OFRecordRawDecoder(record, "class/label", shape=(), dtype=flow.int32)
            mirror = flow.random.CoinFlip(batch_size=BATCH)
            return flow.image.CropMirrorNormalize(
                resized,
                mirror_blob=mirror,
                color_space="RGB",
                mean=MEAN,
                std=STD,
                output_dtype=flow.float,
            )

    def step(i):
        out = pipeline()
        assert out.shape == (BATCH, 3, SIZE, SIZE)

    return Variant(step, flow.sync_default_session, {})


def torch_dataloader_variant(folder: str) -> Variant:
    """``DataLoader`` over the JPEG files, Pillow decoding, random resized crop, flip and
    normalization written with torch ops (torchvision is not a dependency here)."""
    import torch
    from torch.utils.data import DataLoader, Dataset

    files = sorted(os.listdir(os.path.join(folder, "jpeg")))
    mean = torch.tensor(MEAN).view(3, 1, 1)
    std = torch.tensor(STD).view(3, 1, 1)

    class Jpegs(Dataset):
        def __len__(self):
            return len(files)

        def __getitem__(self, i):
            from PIL import Image

            rng = np.random.default_rng()
            with Image.open(os.path.join(folder, "jpeg", files[i])) as img:
                img = img.convert("RGB")
                w, h = img.size
                area = w * h * rng.uniform(0.08, 1.0)
                ratio = np.exp(rng.uniform(np.log(3 / 4), np.log(4 / 3)))
                cw = int(min(w, round(np.sqrt(area * ratio))))
                ch = int(min(h, round(np.sqrt(area / ratio))))
                x0, y0 = rng.integers(0, w - cw + 1), rng.integers(0, h - ch + 1)
                img = img.resize((SIZE, SIZE), Image.BILINEAR, box=(x0, y0, x0 + cw, y0 + ch))
                x = torch.from_numpy(np.asarray(img, np.float32)).permute(2, 0, 1)
            if rng.random() < 0.5:
                x = x.flip(2)
            label = int(files[i].split("_")[1].split(".")[0])
            return (x - mean) / std, label

    loader = DataLoader(
        Jpegs(),
        batch_size=BATCH,
        shuffle=True,
        num_workers=os.cpu_count() or 1,
        persistent_workers=True,
        drop_last=True,
    )
    state = {"it": iter(loader)}

    def step(i):
        try:
            x, _ = next(state["it"])
        except StopIteration:
            state["it"] = iter(loader)
            x, _ = next(state["it"])
        assert tuple(x.shape) == (BATCH, 3, SIZE, SIZE)

    return Variant(step, extra={})


def tf_data_variant(folder: str) -> Variant:
    """``tf.data`` as TensorFlow's own ResNet input pipeline does it: a fused decode-and-crop
    of a sampled box, bilinear resize, flip and normalization, AUTOTUNE-parallel map, batch and
    prefetch of 4 batches."""
    import tensorflow as tf

    files = sorted(tf.io.gfile.glob(os.path.join(folder, "jpeg", "*.jpg")))
    mean = tf.constant(MEAN, tf.float32)
    std = tf.constant(STD, tf.float32)

    def load(path):
        data = tf.io.read_file(path)
        begin, size, _ = tf.image.sample_distorted_bounding_box(
            tf.image.extract_jpeg_shape(data),
            bounding_boxes=tf.zeros([1, 0, 4]),
            min_object_covered=0.0,
            aspect_ratio_range=(3 / 4, 4 / 3),
            area_range=(0.08, 1.0),
            use_image_if_no_bounding_boxes=True,
        )
        y, x, _ = tf.unstack(begin)
        h, w, _ = tf.unstack(size)
        image = tf.image.decode_and_crop_jpeg(data, tf.stack([y, x, h, w]), channels=3)
        image = tf.image.random_flip_left_right(tf.image.resize(image, [SIZE, SIZE]))
        return tf.transpose((image - mean) / std, [2, 0, 1])

    dataset = (
        tf.data.Dataset.from_tensor_slices(files)
        .shuffle(len(files))
        .repeat()
        .map(load, num_parallel_calls=tf.data.AUTOTUNE)
        .batch(BATCH, drop_remainder=True)
        # a bounded read-ahead, as flowjob's feeder (4 batches) and the DataLoader (2 per
        # worker) keep: AUTOTUNE's would bank batches while the other variants are timed
        .prefetch(4)
    )
    batches = iter(dataset)

    def step(i):
        x = next(batches)
        assert tuple(x.shape) == (BATCH, 3, SIZE, SIZE)

    return Variant(step, extra={})


def tf_python() -> str | None:
    """A Python that imports TensorFlow: ``BENCH_TF_PYTHON``, else this one if it has it."""
    named = os.environ.get("BENCH_TF_PYTHON")
    if named:
        return named
    return sys.executable if importlib.util.find_spec("tensorflow") else None


def pipeline_section(quick: bool) -> Section:
    t0 = time.time()
    rounds = 2 if quick else 3
    with tempfile.TemporaryDirectory() as folder:
        write_data(folder)
        variants = {
            "flowjob (OFRecord, host pipeline)": {"engine": "pipeline_flowjob", "data": folder},
            "PyTorch DataLoader + Pillow": {"engine": "pipeline_torch", "data": folder},
        }
        tf = tf_python()
        if tf:
            variants["tf.data"] = {"engine": "pipeline_tf", "data": folder, "python": tf}
        workers = H.start_all(variants)
        try:
            # Both pipelines read ahead (PyTorch: 2 batches per worker; flowjob's feeder)
            # while the other variant runs: long segments keep that head start small.
            steps = {n: max(k, MIN_BATCHES) for n, k in H.calibrate(workers, 4.0).items()}
            series = H.paired_rounds(workers, rounds, steps)
        finally:
            H.close_all(workers)
    rows = [[name, *rate_cells(s, BATCH)] for name, s in series.items()]
    r = H.ratio(series, "flowjob (OFRecord, host pipeline)", "PyTorch DataLoader + Pillow")
    md = [
        f"Images/s of OneFlow-Benchmark's ResNet training input pipeline: {IMAGES} JPEG "
        f"images of 500x375 in OFRecords, random crop, resize to {SIZE}x{SIZE}, coin-flip "
        f"mirror and normalization into float NCHW batches of {BATCH}; PyTorch: a DataLoader "
        f"over the same JPEG files with Pillow and the same transforms, num_workers = "
        f"{os.cpu_count()} (the cores). {rounds} rounds of alternating segments of at least "
        f"{MIN_BATCHES} batches (both read ahead a few batches while the other runs).\n",
        table(["pipeline", "images/s", "range"], rows),
        "",
        f"flowjob / PyTorch DataLoader: {H.fmt_ratio(r)}",
    ]
    goals = [goal("image pipeline images/s flowjob / PyTorch DataLoader", r[0], ">=", 1.0)]
    if tf:
        r_tf = H.ratio(series, "flowjob (OFRecord, host pipeline)", "tf.data")
        md[-1] += f"; flowjob / tf.data: {H.fmt_ratio(r_tf)}"
        md[0] = md[0].rstrip("\n") + (
            " tf.data: TensorFlow's ResNet input pipeline (fused decode-and-crop of a "
            "sampled box, AUTOTUNE map, batch, prefetch of 4) over the same JPEG files.\n"
        )
        goals.append(goal("image pipeline images/s flowjob / tf.data", r_tf[0], ">=", 1.0))
    else:
        md.append(
            "\ntf.data: not run (no TensorFlow here; `BENCH_TF_PYTHON=/path/to/python` names "
            "a Python that has it)."
        )
    return Section("Image input pipeline (issue 35)", "\n".join(md), goals, time.time() - t0)
