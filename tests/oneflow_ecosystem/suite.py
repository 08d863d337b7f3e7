"""Every runnable legacy-API program of Oneflow-Inc's public model repositories of 2020-2021
that the runner knows, with its small arguments, its data and its known cause.

A program runs unchanged (``flowjob run``, with the 2021 NumPy names of
``tests/oneflow_v040/_launch.py``) in a fresh copy of its folder, where its data was written
first. Arguments shrink it to a few steps on a tiny batch; device counts become 1.
"""

from __future__ import annotations

import numpy as np

from tests.upstream import VISION

from . import data
from .program import Cause, Known, Program

__all__ = ["PROGRAMS", "Cause", "Known", "Program"]

_FACE_SEG = (
    "--dataset_dir",
    "data/",
    "--img_height",
    "64",
    "--img_width",
    "64",
    "--train_batch_size",
    "2",
    "--val_batch_size",
    "2",
)
_face_seg_data = data.together(
    data.npy("data/img_train.npy", (4, 3, 64, 64)),
    data.npy("data/mask_train.npy", (4, 1, 64, 64), np.float32, 1.0),
    data.npy("data/img_val.npy", (2, 3, 64, 64)),
    data.npy("data/mask_val.npy", (2, 1, 64, 64)),
    data.placeholder_weights("backbone"),
)

_SCNET_TRAIN = (
    "--train_data_dir",
    "data/train",
    "--train_data_part_num",
    "1",
    "--val_data_dir",
    "data/val",
    "--val_data_part_num",
    "1",
    "--num_examples",
    "2",
    "--num_val_examples",
    "2",
    "--batch_size_per_device",
    "2",
    "--num_epochs",
    "1",
    "--warmup_epochs",
    "0",
    "--model_save_dir",
    "out",
    "--log_dir",
    "log",
)
_scnet_data = data.together(
    data.imagenet_ofrecord("data/train", 4, 64, fields=("images", "labels")),
    data.imagenet_ofrecord("data/val", 2, 64, fields=("images", "labels")),
)

VISION_PROGRAMS = (
    Program(VISION, "LeNet/LeNet.py", data=data.mnist_npz(200, 100), expect=r"^Epoch: 10 "),
    Program(
        VISION,
        "DCGAN/of_dcgan.py",
        ("--epoch_num", "1", "--batch_size", "30000", "--path", "out"),
        data=data.mnist_idx("data/mnist"),
    ),
    # Its training call is commented out at this commit: a run turns the test images of an
    # earlier run into a GIF.
    Program(
        VISION,
        "Pix2Pix/of_pix2pix.py",
        ("--path", "out"),
        data=data.image_files("out/test_images", 3, 64, 64, "_image.png"),
    ),
    Program(
        VISION,
        "TTSR/of_ttsr.py",
        ("--epochs", "1", "--batch_size", "1", "--path", "out", "--vgg_path", "vgg"),
        data=data.together(
            data.image_files("data/train/input", 1, 160, 160, ".png"),
            data.image_files("data/train/ref", 1, 160, 160, ".png"),
            data.image_files("data/test/CUFED5", 1, 160, 160, "_0.png"),
            data.image_files("data/test/CUFED5", 1, 160, 160, "_1.png"),
            data.placeholder_weights("vgg"),
        ),
    ),
    # Its trainer has a syntax error at every commit (EXCLUDED): the trained model it would
    # have written is stood for by placeholder weights.
    Program(
        VISION,
        "face_seg/eval.py",
        _FACE_SEG + ("--model_load_dir", "faceseg_model"),
        data=data.together(_face_seg_data, data.placeholder_weights("faceseg_model")),
    ),
    Program(
        VISION, "Scnet/train.py", _SCNET_TRAIN, data=_scnet_data, folder="Scnet", pythonpath=("",)
    ),
    Program(
        VISION,
        "Scnet/inference.py",
        ("--model_load_dir", "out/snapshot_epoch_0", "--image_path", "img/0.png", "--log_dir", "log"),
        data=data.together(_scnet_data, data.image_files("img", 1, 64, 64, ".png")),
        pythonpath=("",),
        before=(("Scnet/train.py", _SCNET_TRAIN),),
    ),
)

PROGRAMS: tuple[Program, ...] = (*VISION_PROGRAMS,)
