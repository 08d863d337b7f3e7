"""``programs/cnn_ofrecord.py`` (this project's CNN program on the Benchmark CNN scripts' API
surface) through ``flowjob run``: it trains on an OFRecord set of JPEG digits written here by
``flow.data.write_image_folder``, validates each epoch, saves a checkpoint per epoch, and the
checkpoint evaluates and infers. Loss falls, accuracy beats chance."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import flowjob

FLOAT = r"(\d+\.\d+)"
TRAIN = re.compile(rf"^train: epoch (\d+), iter (\d+), loss: {FLOAT}, top_1: {FLOAT}$", re.M)
VALIDATION = re.compile(rf"^validation: epoch (\d+), top_1: {FLOAT}, top_k: {FLOAT}$", re.M)


def write_digits(root: Path, digits: tuple[int, ...], per_class: int, offset: int) -> Path:
    """JPEG digits (28x28 RGB, from the bundled MNIST subset), one folder per class."""
    from PIL import Image

    (images, labels), _ = flowjob.data.load_mnist(100, 100)
    images, labels = images.reshape(-1, 28, 28), labels.reshape(-1)
    for digit in digits:
        (root / str(digit)).mkdir(parents=True)
        for i in np.flatnonzero(labels == digit)[offset : offset + per_class]:
            gray = Image.fromarray(np.round(images[i] * 255).astype(np.uint8))
            gray.convert("RGB").save(root / str(digit) / f"{i}.jpg", quality=95)
    return root


def ofrecord(tmp_path: Path, name: str, per_class: int, offset: int) -> Path:
    out = tmp_path / name
    flowjob.data.write_image_folder(
        write_digits(tmp_path / f"{name}_jpg", (0, 1), per_class, offset),
        out,
        part_num=2,
        part_name_suffix_length=5,
    )
    return out


@pytest.mark.parametrize(
    "optimizer,channel_last,lr_decay,reload",
    [("sgd", False, "cosine", True), ("adam", True, "step", False)],
)
def test_cnn_trains_validates_evaluates_and_infers(
    run_program, tmp_path, optimizer, channel_last, lr_decay, reload
):
    """``reload``: also evaluate and infer from the saved checkpoint (once is enough: the
    two other runs cost a process start each)."""
    train, val = ofrecord(tmp_path, "train", 32, 0), ofrecord(tmp_path, "val", 8, 40)
    common = [
        "--val_data_dir",
        val,
        "--val_data_part_num",
        2,
        "--num_val_examples",
        16,
        "--channel_last",
        channel_last,
        "--optimizer",
        optimizer,
        "--model_save_dir",
        tmp_path / "snap",
    ]
    lr = 0.05 if optimizer == "sgd" else 0.003
    out = run_program(
        "cnn_ofrecord.py",
        "--mode",
        "train_val",
        "--train_data_dir",
        train,
        "--train_data_part_num",
        2,
        "--num_examples",
        64,
        "--num_epochs",
        3,
        "--learning_rate",
        lr,
        "--lr_decay",
        lr_decay,
        "--warmup_epochs",
        1,
        *common,
    )
    losses = [float(m[2]) for m in TRAIN.findall(out)]
    assert len(losses) == 3 * 8, out[-2000:]
    assert np.isfinite(losses).all()
    # from about ln 2 (two classes) to clearly lower: medians of the first and last epochs
    # (random crops of down to 8% of a digit make single batches spike, whichever the seed)
    assert np.median(losses[-8:]) < 0.6 * np.median(losses[:8]), losses
    validations = VALIDATION.findall(out)
    assert [v[0] for v in validations] == ["0", "1", "2"], out[-2000:]
    # chance: 0.5 on 16 held-out digits; the moving batch-norm statistics of a 24-step run
    # still lag a little, so the last epoch may be somewhat below the best one
    top_1 = [float(v[1]) for v in validations]
    assert max(top_1) >= 0.9 and top_1[-1] >= 0.75, validations
    for epoch in range(3):
        assert (tmp_path / "snap" / f"snapshot_epoch_{epoch}" / "snapshot_done").is_file()

    if not reload:
        return
    last = tmp_path / "snap" / "snapshot_epoch_2"
    out = run_program("cnn_ofrecord.py", "--mode", "evaluate", "--model_load_dir", last, *common)
    (evaluation,) = VALIDATION.findall(out)
    assert evaluation[1] == validations[-1][1]  # the checkpoint holds the trained model

    digit = tmp_path / "val_jpg" / "1"
    image = sorted(digit.iterdir())[0]
    out = run_program(
        "cnn_ofrecord.py",
        "--mode",
        "inference",
        "--model_load_dir",
        last,
        "--image_path",
        image,
        "--channel_last",
        channel_last,
    )
    label, prob = re.search(r"^inference: (\d+) ([\d.]+)$", out, re.M).groups()
    assert label == "1" and float(prob) > 0.5, out
