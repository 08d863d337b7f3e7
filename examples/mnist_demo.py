"""flowjob demo: train LeNet-5 on MNIST with watch, watch_diff, async results and TensorBoard logs.

    python examples/mnist_demo.py [--epochs 8] [--model lenet|mlp] [--logdir DIR]
    .venv/bin/flowjob board runs/mnist_demo   # the command it prints at the end

One OneFlow-style program: lazy job functions (``@flow.global_function``) for training,
evaluation and logging; ``tp.Callback`` results so the training loop never waits for a step;
``flow.watch`` / ``flow.watch_diff`` handlers that look inside every step;
``flow.summary.watch_model`` for every variable's histograms and norms; and every summary
type: scalars, histograms, images, text, hparams, the structure graph, the embedding projector
and the exception (anomaly) projector.
"""

import argparse
import os
import time
from typing import Tuple

import numpy as np

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.cli.board import board_command

LOG_CONFIG = flow.function_config()
LOG_CONFIG.default_logical_view(flow.scope.mirrored_view())


def lenet5(images, train):
    """LeNet-5: conv 6@5x5 - pool - conv 16@5x5 - pool - dense 120 - dense 84 - dense 10."""
    init = flow.truncated_normal_initializer(stddev=0.1)
    x = flow.layers.conv2d(images, 6, 5, padding="SAME", activation=flow.nn.relu, name="conv1")
    x = flow.nn.max_pool2d(x, ksize=2, strides=2, padding="SAME", name="pool1")
    x = flow.layers.conv2d(x, 16, 5, padding="SAME", activation=flow.nn.relu, name="conv2")
    x = flow.nn.max_pool2d(x, ksize=2, strides=2, padding="SAME", name="pool2")
    x = flow.reshape(x, [x.shape[0], -1])
    x = flow.layers.dense(x, 120, activation=flow.nn.relu, kernel_initializer=init, name="fc1")
    hidden = flow.layers.dense(x, 84, activation=flow.nn.relu, kernel_initializer=init, name="fc2")
    return flow.layers.dense(hidden, 10, kernel_initializer=init, name="logits"), hidden


def mlp(images, train):
    """The MLP of OneFlow's docs: dense 512 relu - dense 10."""
    init = flow.truncated_normal_initializer(stddev=0.1)
    x = flow.reshape(images, [images.shape[0], -1])
    hidden = flow.layers.dense(
        x, 512, activation=flow.nn.relu, kernel_initializer=init, name="hidden"
    )
    return flow.layers.dense(hidden, 10, kernel_initializer=init, name="logits"), hidden


MODELS = {"lenet": lenet5, "mlp": mlp}


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument(
        "--steps",
        type=int,
        default=None,
        help="training steps per epoch (default: the whole training set)",
    )
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--model", choices=sorted(MODELS), default="lenet")
    parser.add_argument("--lr", type=float, default=0.05, help="SGD learning rate")
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--print-every", type=int, default=10)
    parser.add_argument(
        "--logdir",
        default=None,
        help="TensorBoard log directory (default: a new runs/mnist_demo/<model>-<time> per run)",
    )
    parser.add_argument(
        "--data-dir",
        default=".",
        help="directory of an mnist.npz (default: the bundled 5,000-image subset)",
    )
    parser.add_argument(
        "--model-dir",
        default=None,
        help="also save the trained variables here (OneFlow checkpoint layout)",
    )
    parser.add_argument(
        "--embedding-size",
        type=int,
        default=500,
        help="test images shown in the embedding projector",
    )
    return parser.parse_args(argv)


def tag(name):
    return np.frombuffer(name.encode(), dtype=np.int8)


def step_arg(step):
    return [np.array([step], dtype=np.int64)]


def to_uint8_nhwc(images):
    """(N, 1, 28, 28) floats in [0, 1] -> (N, 28, 28, 1) uint8 for image summaries."""
    return (np.transpose(images, (0, 2, 3, 1)) * 255).round().astype(np.uint8)


class Monitor:
    """What the watch handlers and result callbacks see; they all run on flowjob's completion
    thread, in call order, so plain attributes are enough."""

    def __init__(self, steps_per_epoch, print_every):
        self.steps_per_epoch = steps_per_epoch
        self.print_every = print_every
        self.step = 0
        self.active, self.grad_norm, self.losses = [], [], []

    def watch_hidden(self, hidden: tp.Numpy):
        self.active.append(float(np.mean(hidden > 0)))

    def watch_logits_grad(self, grad: tp.Numpy):
        # d(sum of losses)/d(logits) = softmax - one_hot: its row norm says how wrong a sample is.
        self.grad_norm.append(float(np.mean(np.linalg.norm(grad, axis=1))))

    def on_loss(self, loss: tp.Numpy):
        self.losses.append(float(loss.mean()))
        self.step += 1
        if self.step % self.print_every == 0 or self.step % self.steps_per_epoch == 0:
            epoch, i = divmod(self.step - 1, self.steps_per_epoch)
            n = self.print_every
            print(
                f"  epoch {epoch + 1} step {i + 1:3d}/{self.steps_per_epoch}  "
                f"loss {np.mean(self.losses[-n:]):.4f}  "
                f"active ReLUs {100 * np.mean(self.active[-n:]):4.1f}%  "
                f"|dL/dlogits| {np.mean(self.grad_norm[-n:]):.3f}",
                flush=True,
            )


def main(argv=None):
    args = parse_args(argv)
    board_dir = args.logdir or os.path.join("runs", "mnist_demo")
    logdir = args.logdir or os.path.join(board_dir, time.strftime(f"{args.model}-%Y%m%d-%H%M%S"))
    batch, model = args.batch_size, MODELS[args.model]
    (train_images, train_labels), (test_images, test_labels) = flow.data.load_mnist(
        batch, batch, out_dir=args.data_dir
    )
    steps = len(train_images) if args.steps is None else min(args.steps, len(train_images))
    monitor = Monitor(steps, args.print_every)
    image_shape = (batch, 1, 28, 28)

    # -- jobs: all defined before the first call, as in OneFlow --------------------------
    @flow.global_function(type="train")
    def train_job(
        images: tp.Numpy.Placeholder(image_shape),
        labels: tp.Numpy.Placeholder((batch,), dtype=flow.int32),
        step: tp.Numpy.Placeholder((1,), dtype=flow.int64),
    ) -> tp.Callback[tp.Numpy]:
        logits, hidden = model(images, train=True)
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits, name="loss")
        flow.summary.scalar(flow.math.reduce_mean(loss), step, "train/loss")
        flow.summary.histogram(hidden, step, "train/hidden_activations")
        flow.watch(hidden, monitor.watch_hidden)
        flow.watch_diff(logits, monitor.watch_logits_grad)
        # The learning rate drops tenfold for the last quarter of the epochs.
        decay_step = steps * args.epochs * 3 // 4
        schedule = flow.optimizer.PiecewiseConstantScheduler([decay_step], [args.lr, args.lr / 10])
        flow.optimizer.SGD(schedule, momentum=args.momentum).minimize(loss)
        # Every variable's value and gradient histograms, norms and update ratio, and the
        # learning rate, under "~model" in the board, every 10th step.
        flow.summary.watch_model(every_n_steps=10)
        return loss

    @flow.global_function(type="predict")
    def eval_job(images: tp.Numpy.Placeholder(image_shape)) -> Tuple[tp.Numpy, tp.Numpy]:
        logits, hidden = model(images, train=False)
        return flow.nn.softmax(logits), hidden

    @flow.global_function(function_config=LOG_CONFIG)
    def create_writer():
        flow.summary.create_summary_writer(logdir)

    @flow.global_function(function_config=LOG_CONFIG)
    def scalar_job(
        value: tp.ListNumpy.Placeholder((1,), dtype=flow.float),
        step: tp.ListNumpy.Placeholder((1,), dtype=flow.int64),
        tag: tp.ListNumpy.Placeholder((64,), dtype=flow.int8),
    ):
        flow.summary.scalar(value, step, tag)

    @flow.global_function(function_config=LOG_CONFIG)
    def histogram_job(
        value: tp.ListNumpy.Placeholder((500_000,), dtype=flow.float),
        step: tp.ListNumpy.Placeholder((1,), dtype=flow.int64),
        tag: tp.ListNumpy.Placeholder((64,), dtype=flow.int8),
    ):
        flow.summary.histogram(value, step, tag)

    @flow.global_function(function_config=LOG_CONFIG)
    def image_job(
        value: tp.ListNumpy.Placeholder((32, 28, 28, 1), dtype=flow.uint8),
        step: tp.ListNumpy.Placeholder((1,), dtype=flow.int64),
        tag: tp.ListNumpy.Placeholder((64,), dtype=flow.int8),
    ):
        flow.summary.image(value, step, tag)

    @flow.global_function(function_config=LOG_CONFIG)
    def pb_job(
        value: tp.ListNumpy.Placeholder((100_000,), dtype=flow.int8),
        step: tp.ListNumpy.Placeholder((1,), dtype=flow.int64),
    ):
        flow.summary.pb(value, step=step)

    @flow.global_function(function_config=LOG_CONFIG)
    def flush_job():
        flow.summary.flush_summary_writer()

    def log_pb(summary, step):
        pb_job([np.frombuffer(str(summary).encode(), dtype=np.int8)], step_arg(step))

    def evaluate():
        """(accuracy, probabilities, hidden features) on the test set."""
        probs, features = zip(*(eval_job(images) for images in test_images))
        probs, features = np.concatenate(probs), np.concatenate(features)
        accuracy = float(np.mean(probs.argmax(1) == test_labels.reshape(-1)))
        return accuracy, probs, features

    def log_weights(epoch):
        for name, blob in sorted(flow.get_all_variables().items()):
            if name.endswith(("-weight", "-bias")):
                values = blob.numpy().astype(np.float32).reshape(-1)
                histogram_job([values], step_arg(epoch), [tag(f"weights/{name}")])

    # -- run -------------------------------------------------------------------------------
    print(
        f"Training {args.model} on {steps * batch} MNIST images "
        f"({args.epochs} epochs of {steps} steps), logging to {logdir}\n"
        f"Watch it train live: in another terminal run\n    {board_command(board_dir)}\n"
        "and open the URL it prints; the page follows training by itself.",
        flush=True,
    )
    create_writer()
    flow.sync_default_session()  # the writer is open: the graph goes into the run's event file
    flow.summary.Graph(logdir).write_structure_graph()
    log_pb(
        flow.summary.text(
            [
                f"model: {args.model}",
                f"batch size: {batch}",
                f"learning rate: {args.lr}",
                f"momentum: {args.momentum}",
                f"epochs: {args.epochs}",
            ],
            tag="run/config",
        ),
        0,
    )
    log_weights(0)
    started = time.time()
    accuracy = 0.0
    for epoch in range(args.epochs):
        epoch_start = time.time()
        for i in range(steps):
            # Returns at once: the loss reaches monitor.on_loss when the step has run.
            train_job(
                train_images[i], train_labels[i], np.array([epoch * steps + i], dtype=np.int64)
            )(monitor.on_loss)
        accuracy, probs, features = evaluate()  # waits for the training steps before it
        scalar_job(
            [np.array([accuracy], dtype=np.float32)], step_arg(epoch + 1), [tag("test/accuracy")]
        )
        log_weights(epoch + 1)
        print(
            f"epoch {epoch + 1}: test accuracy {100 * accuracy:.1f}% "
            f"({time.time() - epoch_start:.1f} s)",
            flush=True,
        )

    # -- what the trained model gives -----------------------------------------------------
    labels = test_labels.reshape(-1)
    images = test_images.reshape(-1, 1, 28, 28)
    predictions = probs.argmax(1)
    wrong = np.flatnonzero(predictions != labels)
    if len(wrong):
        image_job(
            [to_uint8_nhwc(images[wrong[:32]])], step_arg(args.epochs), [tag("test/misclassified")]
        )
    # One Markdown string: TensorBoard renders a table with a header from it (a list of
    # strings would render each line on its own, as raw "| 0 | 98.0% |" text).
    per_class = [
        f"| {d} | {100 * np.mean(predictions[labels == d] == d):.1f}% |" for d in range(10)
    ]
    log_pb(
        flow.summary.text(
            "\n".join(["| digit | accuracy |", "|---|---|", *per_class]),
            tag="test/per_class_accuracy",
        ),
        args.epochs,
    )
    log_pb(
        flow.summary.hparams(
            {
                flow.summary.HParam("model", flow.summary.ValueSet(sorted(MODELS))): args.model,
                flow.summary.HParam("learning_rate", flow.summary.RealRange(1e-4, 1.0)): args.lr,
                flow.summary.HParam("momentum", flow.summary.RealRange(0.0, 1.0)): args.momentum,
                flow.summary.HParam("epochs", flow.summary.IntegerRange(1, 100)): args.epochs,
                flow.summary.Metric("test/accuracy", float): accuracy,
                flow.summary.Metric("train/final_loss", float): float(
                    np.mean(monitor.losses[-steps:])
                ),
            }
        ),
        args.epochs,
    )

    n = min(args.embedding_size, len(labels))
    projector = flow.summary.Projector(logdir)
    projector.create_embedding_projector()
    projector.embedding_projector(
        value=features[:n],
        label=labels[:n],
        tag="hidden_features",
        step=args.epochs,
        sample_name="mnist",
        sample_type="image",
        x=to_uint8_nhwc(images[:n])[..., 0],
    )
    # The exception projector flags digits that look unusual for their class: each sample is
    # its hidden features minus the median features of its class.
    projector.create_exception_projector()
    centers = {d: np.median(features[labels == d], axis=0) for d in np.unique(labels)}
    residuals = features[:n] - np.stack([centers[d] for d in labels[:n]])
    # label/prediction (flowjob extensions) show beside each flagged digit in the Anomalies tab.
    scores = projector.exception_projector(
        value=residuals,
        tag="unusual_digits",
        step=args.epochs,
        sample_name="mnist",
        sample_type="image",
        x=to_uint8_nhwc(images[:n])[..., 0],
        label=labels[:n],
        prediction=predictions[:n],
    )
    projector.close()
    flush_job()
    flow.sync_default_session()
    if args.model_dir:
        flow.checkpoint.save(args.model_dir)
        print(f"model saved to {args.model_dir}")

    unusual = np.flatnonzero(scores.is_outlier)
    print(
        f"trained {monitor.step} steps in {time.time() - started:.1f} s; "
        f"{len(wrong)} of {len(labels)} test images misclassified; the exception projector "
        f"flags {len(unusual)} of {n} as unusual ({int(np.sum(np.isin(unusual, wrong)))} of "
        f"them misclassified)"
    )
    print(f"test accuracy: {100 * accuracy:.1f}%")
    print(
        f"\nTensorBoard logs are in {logdir}. Open the board (next time while it trains: "
        "the open page follows training live) with:\n"
        f"    {board_command(board_dir)}"
    )


if __name__ == "__main__":
    main()
