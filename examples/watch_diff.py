"""flow.watch_diff: look at the gradient of a blob while a training job runs (OneFlow docs).

    python examples/watch_diff.py [--steps 40] [--batch-size 100] [--print-every 20]

Trains a small MLP on MNIST for ``--steps`` steps. The handler gets d(sum of losses)/d(logits)
at every step, a (100, 10) float32 array whose rows are softmax(logits) - one_hot(label);
every ``--print-every`` steps it prints its shape, its largest row sum (0 up to rounding) and
its first row, and the mean loss follows: a handful of lines.
"""

import argparse
import itertools

import numpy as np

import flowjob as flow
import flowjob.typing as tp


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--steps", type=int, default=40, help="stop after this many steps")
    parser.add_argument("--print-every", type=int, default=20)
    parser.add_argument(
        "--data-dir",
        default=".",
        help="where an mnist.npz may be (else the bundled subset is used)",
    )
    args = parser.parse_args(argv)
    batch = args.batch_size

    calls = itertools.count()

    def watch_diff_handler(blob: tp.Numpy):
        step = next(calls)
        if step % args.print_every == 0:
            row = np.array2string(blob[0], precision=7, max_line_width=1_000)
            print(
                f"step {step}: d(loss)/d(logits) {blob.shape} {blob.dtype}, largest |row sum| "
                f"{np.abs(blob.sum(1)).max():.1e}, first row {row}"
            )

    config = flow.function_config()
    config.default_data_type(flow.float)

    @flow.global_function(type="train", function_config=config)
    def train_job(
        images: tp.Numpy.Placeholder((batch, 1, 28, 28), dtype=flow.float),
        labels: tp.Numpy.Placeholder((batch,), dtype=flow.int32),
    ) -> tp.Numpy:
        with flow.scope.placement("cpu", "0:0"):
            initializer = flow.truncated_normal_initializer(stddev=0.1)
            reshape = flow.reshape(images, [images.shape[0], -1])
            hidden = flow.layers.dense(
                reshape, 512, activation=flow.nn.relu, kernel_initializer=initializer, name="hidden"
            )
            logits = flow.layers.dense(hidden, 10, kernel_initializer=initializer, name="output")
            loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)

        lr_scheduler = flow.optimizer.PiecewiseConstantScheduler([], [0.1])
        flow.optimizer.SGD(lr_scheduler, momentum=0).minimize(loss)
        flow.watch_diff(logits, watch_diff_handler)
        return loss

    (train_images, train_labels), _ = flow.data.load_mnist(batch, out_dir=args.data_dir)
    for i, (images, labels) in enumerate(zip(train_images, train_labels)):
        if i >= args.steps:
            break
        loss = train_job(images, labels)
        if i % args.print_every == 0:
            print(loss.mean())


if __name__ == "__main__":
    main()
