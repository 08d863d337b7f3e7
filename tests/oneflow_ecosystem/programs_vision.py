"""oneflow_vision_model: its runnable programs (see suite.py)."""

from __future__ import annotations

from tests.upstream import VISION

from . import data
from ._common import flags
from .program import Program

_SCNET_TRAIN = flags(
    train_data_dir="data/train",
    train_data_part_num=1,
    val_data_dir="data/val",
    val_data_part_num=1,
    num_examples=2,
    num_val_examples=2,
    batch_size_per_device=2,
    num_epochs=1,
    warmup_epochs=0,
    model_save_dir="out",
    log_dir="log",
)
_scnet_data = data.together(
    data.imagenet_ofrecord("data/train", 4, 64, fields=("images", "labels")),
    data.imagenet_ofrecord("data/val", 2, 64, fields=("images", "labels")),
)

VISION_PROGRAMS = (
    Program(VISION, "LeNet/LeNet.py", data=data.mnist_npz(200, 100), expect=r"^Epoch: 10 "),
    # It reads all of MNIST (the 60,000 images are hard-coded) and prints every 50 batches.
    Program(
        VISION,
        "DCGAN/of_dcgan.py",
        flags(epoch_num=1, batch_size=64, path="out"),
        data=data.mnist_idx("data/mnist"),
        stop_after=r"^1th epoch, 50th batch, ",
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
    Program(
        VISION, "Scnet/train.py", _SCNET_TRAIN, data=_scnet_data, folder="Scnet", pythonpath=("",)
    ),
    Program(
        VISION,
        "Scnet/inference.py",
        (
            "--model_load_dir",
            "out/snapshot_epoch_0",
            "--image_path",
            "img/0.png",
            "--log_dir",
            "log",
        ),
        data=data.together(_scnet_data, data.image_files("img", 1, 64, 64, ".png")),
        pythonpath=("",),
        before=(("Scnet/train.py", _SCNET_TRAIN),),
    ),
    # Person re-identification on Market-1501 (its triplet loss gathers the hardest pairs with
    # flow.where and gather_nd: dynamic blobs); the ResNet-50 it starts from is a download.
    # Its pooling fixes the input size (256 x 128). The trainer imports eval.py, whose own
    # parser reads the command line first: only the flags both know can be given, so its 120
    # epochs stand, and it stops after the first.
    Program(
        VISION,
        "Re-ID/train.py",
        flags(batch_size=8, data_dir="dataset", model_load_dir="pretrained"),
        data=data.together(data.market1501("dataset"), data.placeholder_weights("pretrained")),
        stop_after=r"^epoch: \[1/120\]",
    ),
    Program(
        VISION,
        "Re-ID/eval.py",
        flags(
            batch_size=2,
            data_dir="dataset",
            model_load_dir="model",
        ),
        data=data.together(data.market1501("dataset"), data.placeholder_weights("model")),
    ),
)
