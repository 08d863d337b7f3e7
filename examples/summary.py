"""flow.summary with OneFlow's job API: every summary type of the OneFlow docs, for TensorBoard.

    python examples/summary.py [--logdir runs/summary] [--steps 20]
    .venv/bin/flowjob board runs/summary   # as printed at the end (flowjob board ... if on PATH)

As in OneFlow's visualization guide, the summary ops run inside jobs whose inputs are
``tp.ListNumpy`` placeholders (tags are int8 bytes); text and hparams go through ``pb`` jobs;
the structure graph and the projectors are host-side objects.
"""

import argparse
import os

import numpy as np

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.cli.board import board_command


def tag_bytes(tag):
    return np.frombuffer(tag.encode(), dtype=np.int8)


def pb_bytes(summary):
    return np.frombuffer(str(summary).encode(), dtype=np.int8)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logdir", default=os.path.join("runs", "summary"))
    parser.add_argument("--steps", type=int, default=20, help="how many steps to log")
    args = parser.parse_args(argv)
    logdir = args.logdir

    func_config = flow.function_config()
    func_config.default_data_type(flow.float)
    func_config.default_logical_view(flow.scope.mirrored_view())

    @flow.global_function(function_config=func_config)
    def CreateWriter():
        flow.summary.create_summary_writer(logdir)

    @flow.global_function(function_config=func_config)
    def ScalarJob(
        value: tp.ListNumpy.Placeholder((1,), dtype=flow.float),
        step: tp.ListNumpy.Placeholder((1,), dtype=flow.int64),
        tag: tp.ListNumpy.Placeholder((1000,), dtype=flow.int8),
    ):
        flow.summary.scalar(value, step, tag)

    @flow.global_function(function_config=func_config)
    def HistogramJob(
        value: tp.ListNumpy.Placeholder((200, 200, 200), dtype=flow.float),
        step: tp.ListNumpy.Placeholder((1,), dtype=flow.int64),
        tag: tp.ListNumpy.Placeholder((9,), dtype=flow.int8),
    ):
        flow.summary.histogram(value, step, tag)

    @flow.global_function(function_config=func_config)
    def PbJob(
        value: tp.ListNumpy.Placeholder((1500,), dtype=flow.int8),
        step: tp.ListNumpy.Placeholder((1,), dtype=flow.int64),
    ):
        flow.summary.pb(value, step=step)

    @flow.global_function(function_config=func_config)
    def ImageJob(
        value: tp.ListNumpy.Placeholder(shape=(4, 64, 64, 3), dtype=flow.uint8),
        step: tp.ListNumpy.Placeholder((1,), dtype=flow.int64),
        tag: tp.ListNumpy.Placeholder((10,), dtype=flow.int8),
    ):
        flow.summary.image(value, step, tag)

    @flow.global_function(function_config=func_config)
    def FlushJob():
        flow.summary.flush_summary_writer()

    rng = np.random.default_rng(0)
    CreateWriter()

    # Structure graph: one entry per job (also shown in TensorBoard's Graphs tab).
    flow.summary.Graph(logdir).write_structure_graph()

    text = flow.summary.text(["vgg16", "resnet50", "mask-rcnn", "yolov3"])
    hparams = flow.summary.hparams(
        {
            flow.summary.HParam("learning_rate", flow.summary.RealRange(1e-2, 1e-1)): 0.02,
            flow.summary.HParam("dense_layers", flow.summary.IntegerRange(2, 7)): 5,
            flow.summary.HParam("optimizer", flow.summary.ValueSet(["adam", "sgd"])): "adam",
            flow.summary.HParam("magic", flow.summary.ValueSet([False, True])): True,
            flow.summary.Metric("loss", float): 0.02,
            "dropout": 0.6,
        }
    )
    PbJob([pb_bytes(text)], [np.array([0], dtype=np.int64)])
    PbJob([pb_bytes(hparams)], [np.array([0], dtype=np.int64)])

    for i in range(args.steps):
        step = [np.array([i], dtype=np.int64)]
        loss = np.array([2.0 * np.exp(-i / 5) + 0.1 * rng.random()], dtype=np.float32)
        ScalarJob([loss], step, [tag_bytes("loss")])
        weights = rng.normal(i / 10, 1.0, size=(50, 50, 20)).astype(np.float32)
        HistogramJob([weights], step, [tag_bytes("histogram")])

    # Three 64x64 RGB images: a red-green gradient, a checkerboard and a cyan square.
    ramp = np.linspace(0, 255, 64, dtype=np.uint8)
    gradient = np.stack(
        [np.tile(ramp, (64, 1)), np.tile(ramp[:, None], (1, 64)), np.full((64, 64), 128, np.uint8)],
        axis=-1,
    )
    checker = np.kron((np.indices((8, 8)).sum(0) % 2) * 255, np.ones((8, 8)))
    checker = np.repeat(checker[..., None], 3, axis=-1).astype(np.uint8)
    cyan = np.zeros((64, 64, 3), np.uint8)
    cyan[16:48, 16:48] = [0, 255, 255]
    images = np.stack([gradient, checker, cyan])
    ImageJob([images], [np.array([0], dtype=np.int64)], [tag_bytes("image")])

    # Projectors: an embedding of 100 points in 10 clusters, and the same data with a few
    # outliers for the exception (anomaly) projector, each point with a small image.
    labels = np.repeat(np.arange(10), 10).astype(np.int64)
    centers = rng.normal(0, 5, size=(10, 16))
    points = (centers[labels] + rng.normal(0, 0.5, size=(100, 16))).astype(np.float32)
    samples = (rng.random((100, 8, 8)) * 255).astype(np.uint8)
    projector = flow.summary.Projector(logdir)
    projector.create_embedding_projector()
    projector.embedding_projector(
        value=points,
        label=labels,
        tag="embedding_projector",
        step=1,
        sample_name="sample",
        sample_type="image",
        x=samples,
    )
    projector.create_exception_projector()
    odd = points.copy()
    odd[[3, 42, 77]] += 40.0
    scores = projector.exception_projector(
        value=odd,
        tag="exception_projector",
        step=1,
        sample_name="sample",
        sample_type="image",
        x=samples,
    )
    projector.close()

    FlushJob()
    flow.sync_default_session()
    print(f"outliers flagged by the exception projector: {np.flatnonzero(scores.is_outlier)}")
    print(f"logs written to {logdir}; view them with: {board_command(logdir)}")


if __name__ == "__main__":
    main()
