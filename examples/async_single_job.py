"""Asynchronous results: train an MLP on MNIST, losses arrive in a callback; save a checkpoint.

    python examples/async_single_job.py [--epochs 5] [--steps N] [--model-dir DIR]

The job is annotated ``-> tp.Callback[tp.Numpy]``: a call only enqueues the step and returns a
function that registers the callback, so the loop prepares the next batch while the step runs
(OneFlow docs, "asynchronous results"). ``async_batch_job.py`` evaluates the saved model.
"""

import argparse
import os
import shutil

from models import mlp

import flowjob as flow
import flowjob.typing as tp


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--steps", type=int, default=None, help="steps per epoch (default: all)")
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--print-every", type=int, default=20)
    parser.add_argument("--model-dir", default=os.path.join("runs", "mlp_models_1"))
    parser.add_argument("--data-dir", default=".")
    args = parser.parse_args(argv)
    batch = args.batch_size

    @flow.global_function(type="train")
    def train_job(
        images: tp.Numpy.Placeholder((batch, 1, 28, 28), dtype=flow.float),
        labels: tp.Numpy.Placeholder((batch,), dtype=flow.int32),
    ) -> tp.Callback[tp.Numpy]:
        logits = mlp(images)
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits, name="softmax_loss")
        lr_scheduler = flow.optimizer.PiecewiseConstantScheduler([], [args.lr])
        flow.optimizer.SGD(lr_scheduler, momentum=0).minimize(loss)
        return loss

    calls = 0

    def cb_print_loss(result: tp.Numpy):
        # Runs on flowjob's completion thread, once per call, in call order.
        nonlocal calls
        if calls % args.print_every == 0:
            print(f"step {calls}: loss {result.mean():.6f}")
        calls += 1

    (train_images, train_labels), _ = flow.data.load_mnist(batch, batch, out_dir=args.data_dir)
    for _epoch in range(args.epochs):
        for i, (images, labels) in enumerate(zip(train_images, train_labels)):
            if args.steps is not None and i >= args.steps:
                break
            train_job(images, labels)(cb_print_loss)

    # save() waits for every step launched so far (and its callback) before reading variables.
    if os.path.isfile(os.path.join(args.model_dir, "snapshot_done")):
        shutil.rmtree(args.model_dir)
    flow.checkpoint.save(args.model_dir)
    print(f"{calls} steps done, model saved to {args.model_dir}")


if __name__ == "__main__":
    main()
