"""Every Python program of OneFlow's documentation at v0.4.0 and what it does here.

``PROGRAMS``: each program under ``en/docs/code`` (and the ``cn/docs/code`` ones whose code
differs from their English twin, or that have none: there the two trees differ only in
comments), read from a clone at run time (the repository holds none of them), run unchanged
with ``python -m flowjob run`` in a fresh copy of its folder. ``outcome`` is ``PASS``,
``NATIVE_BUILD`` (the program builds C++ ops, which flowjob cannot: it must stop with
flowjob's ``NativeBuildError`` naming the library), ``TWO_HOSTS`` (written for two machines
at fixed addresses: on one it must stop with a ``ConfigError``) or the known cause of its
failure.
"""

from __future__ import annotations

import dataclasses
import enum


class Data(enum.Enum):
    """What a program's folder needs besides the documentation's own files."""

    NONE = enum.auto()
    MNIST = enum.auto()  # a small mnist.npz, which flow.data.load_mnist reads first
    IMAGENET_OFRECORD = enum.auto()  # path/to/ImageNet/ofrecord/part-00000 (JPEG, class/label)
    IMAGE_FOLDER = enum.auto()  # images/train_set + images/train_label/label.txt


class Outcome(enum.Enum):
    PASS = "pass"
    NATIVE_BUILD = "NativeBuildError"
    # Written for two hosts: on one machine it must stop with a clear error (ConfigError).
    TWO_HOSTS = "ConfigError"


@dataclasses.dataclass(frozen=True)
class Program:
    path: str  # under docs/code of ``lang``
    outcome: Outcome | str = Outcome.PASS  # a str: the known cause of its failure
    expect: str = ""  # a regex its output must match when it passes
    needs: tuple[str, ...] = ()  # programs of the same folder run first (their checkpoints)
    args: tuple[str, ...] = ()
    data: Data = Data.NONE
    lang: str = "en"
    stop_after: int = 0  # endless training loop: stop after this many output lines
    native: str = ""  # NATIVE_BUILD: the library the NativeBuildError must name

    @property
    def id(self) -> str:
        return f"{self.lang}/{self.path}"


FLOAT = r"-?\d+\.\d+(?:e[-+]?\d+)?"
# The parallelism chapter (gpu_device_num(2): 2 virtual CPU devices here) trains for 50 epochs:
# load_mnist's two lines, then its first printed loss show it runs (tests/distributed/
# test_doc_programs.py checks that the losses fall).
PARALLEL_LOSS = rf"^{FLOAT}$"
# distributed_train.py calls flow.env.machine after its job is defined (issue 20's defect).
TWO_HOSTS_DEFECT = "flow.env.machine after a job is defined is ignored: it trains alone"

PROGRAMS: tuple[Program, ...] = (
    Program("quick_start/mlp_mnist.py", expect=rf"Epoch \[20/20\], Loss: {FLOAT}", data=Data.MNIST),
    Program("quick_start/lenet_train.py", expect="model saved", data=Data.MNIST),
    Program(
        "quick_start/lenet_eval.py",
        expect=r"accuracy: \d+\.\d%",
        needs=("quick_start/lenet_train.py",),
        data=Data.MNIST,
    ),
    Program(
        "quick_start/lenet_test.py",
        expect=r"prediction: \d",
        needs=("quick_start/lenet_train.py",),
        args=("9.png",),
        data=Data.MNIST,
    ),
    Program("basics_topics/feed_numpy.py", expect=r"\(32, 1, 28, 28\) \(32,\)"),
    Program(
        "basics_topics/of_data_pipeline.py",
        expect=r"\(64, 3, 224, 224\) \(64,\)",
        data=Data.IMAGENET_OFRECORD,
    ),
    Program("basics_topics/mlp_mnist_origin.py", expect=FLOAT, data=Data.MNIST),
    Program(
        "basics_topics/mlp_mnist_finetune.py",
        expect=FLOAT,
        needs=("basics_topics/mlp_mnist_origin.py",),
        data=Data.MNIST,
    ),
    Program("basics_topics/async_single_job.py", expect=FLOAT, data=Data.MNIST),
    Program(
        "basics_topics/async_batch_job.py",
        expect=r"accuracy: \d+\.\d%",
        needs=("basics_topics/async_single_job.py",),  # its checkpoint has the same names
        data=Data.MNIST,
    ),
    Program("basics_topics/synchronize_single_job.py", expect="model saved", data=Data.MNIST),
    Program(
        "basics_topics/synchronize_batch_job.py",
        expect=r"accuracy: \d+\.\d%",
        needs=("basics_topics/synchronize_single_job.py",),
        data=Data.MNIST,
    ),
    Program("basics_topics/distributed_train.py", Outcome.TWO_HOSTS, data=Data.MNIST),
    Program("extended_topics/test_watch.py", expect=r"out: \["),
    Program("extended_topics/test_watch_diff.py", expect=r"\(100, 10\) float32", data=Data.MNIST),
    Program("extended_topics/ofrecord_to_string.py", expect="Done!"),
    Program(
        "extended_topics/ofrecord_from_string.py",
        expect=r"\] \[\d\]",
        needs=("extended_topics/ofrecord_to_string.py",),
    ),
    Program(
        "extended_topics/img_to_ofrecord/img2ofrecord.py",
        expect="Process image successfully",
        data=Data.IMAGE_FOLDER,
    ),
    Program(
        "extended_topics/img_to_ofrecord/lenet_train.py",
        expect=rf"^\[{FLOAT}\]$",
        needs=("extended_topics/img_to_ofrecord/img2ofrecord.py",),
        data=Data.IMAGE_FOLDER,
        stop_after=3,  # its loop runs 15,000 steps: three printed losses show it trains
    ),
    Program("extended_topics/eager_mlp_mnist.py", data=Data.MNIST),
    Program(
        "extended_topics/consistent_strategy.py",
        expect=PARALLEL_LOSS,
        data=Data.MNIST,
        stop_after=3,
    ),
    Program(
        "extended_topics/mirrored_strategy.py",
        expect=PARALLEL_LOSS,
        data=Data.MNIST,
        stop_after=3,
    ),
    Program(
        "extended_topics/mirrored_strategy.py",
        expect=PARALLEL_LOSS,
        data=Data.MNIST,
        stop_after=3,
        lang="cn",
    ),
    Program(
        "extended_topics/hybrid_parallelism_lenet.py",
        expect=PARALLEL_LOSS,
        data=Data.MNIST,
        stop_after=3,
    ),
    Program(
        "extended_topics/hybrid_parallelism_mlp.py",
        expect=PARALLEL_LOSS,
        data=Data.MNIST,
        stop_after=3,
    ),
    Program(
        "extended_topics/mixed_parallel_lenet.py",
        expect=PARALLEL_LOSS,
        data=Data.MNIST,
        stop_after=3,
    ),
    Program(
        "extended_topics/mixed_parallel_mlp.py",
        expect=PARALLEL_LOSS,
        data=Data.MNIST,
        stop_after=3,
    ),
    Program(
        "extended_topics/create_user_op/test_user_op.py",
        Outcome.NATIVE_BUILD,
        native="final_relu.so",
    ),
    Program("extended_topics/myop_grad/test_myop.py", Outcome.NATIVE_BUILD, native="final_myop.so"),
    Program(
        "extended_topics/data_loader/test_mini_dataloader.py",
        Outcome.NATIVE_BUILD,
        native="miniloader.so",
    ),
    # Only the Chinese tree has the Python-op example.
    Program(
        "extended_topics/python_op/test_user_relu.py",
        expect=r"\[-?0\. -?0\. +0\. +1\. +2\.\]",
        lang="cn",
    ),
)
