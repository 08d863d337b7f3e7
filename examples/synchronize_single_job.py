"""Synchronous results: train LeNet on MNIST, print the mean loss, save a checkpoint.

    python examples/synchronize_single_job.py [--epochs 1] [--steps N] [--model-dir DIR]

The job is annotated ``-> tp.Numpy``, so each call blocks and returns the loss as an ndarray
(OneFlow docs, "get results from job functions"). The trained variables are saved in OneFlow's
checkpoint layout to ``--model-dir`` (default ``runs/lenet_models_1``), which
``synchronize_batch_job.py`` evaluates.
"""

import argparse
import os
import shutil

from models import lenet

import flowjob as flow
import flowjob.typing as tp


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--steps", type=int, default=None, help="steps per epoch (default: all)")
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--print-every", type=int, default=20)
    parser.add_argument("--model-dir", default=os.path.join("runs", "lenet_models_1"))
    parser.add_argument("--data-dir", default=".")
    args = parser.parse_args(argv)
    batch = args.batch_size

    @flow.global_function(type="train")
    def train_job(
        images: tp.Numpy.Placeholder((batch, 1, 28, 28), dtype=flow.float),
        labels: tp.Numpy.Placeholder((batch,), dtype=flow.int32),
    ) -> tp.Numpy:
        with flow.scope.placement("cpu", "0:0"):
            logits = lenet(images, train=True)
            loss = flow.nn.sparse_softmax_cross_entropy_with_logits(
                labels, logits, name="softmax_loss"
            )
        lr_scheduler = flow.optimizer.PiecewiseConstantScheduler([], [args.lr])
        flow.optimizer.SGD(lr_scheduler, momentum=0).minimize(loss)
        return loss

    (train_images, train_labels), _ = flow.data.load_mnist(batch, batch, out_dir=args.data_dir)
    for epoch in range(args.epochs):
        for i, (images, labels) in enumerate(zip(train_images, train_labels)):
            if args.steps is not None and i >= args.steps:
                break
            loss = train_job(images, labels)
            if i % args.print_every == 0:
                print(f"epoch {epoch} step {i}: loss {loss.mean():.6f}")

    # flow.checkpoint.save wants a new or empty directory, as in OneFlow.
    if os.path.isfile(os.path.join(args.model_dir, "snapshot_done")):
        shutil.rmtree(args.model_dir)
    flow.checkpoint.save(args.model_dir)
    print(f"model saved to {args.model_dir}")


if __name__ == "__main__":
    main()
