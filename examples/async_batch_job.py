"""Asynchronous results, several at once: evaluate the MLP saved by async_single_job.py.

    python examples/async_batch_job.py [--model-dir DIR] [--steps N]

The job returns ``(labels, logits)`` annotated ``-> tp.Callback[Tuple[tp.Numpy, tp.Numpy]]``;
the callback counts correct predictions as results arrive. Unlike OneFlow's doc program, it
waits for the callbacks (``flow.sync_default_session()``) before printing the accuracy.
"""

import argparse
import os
from typing import Tuple

import numpy as np
from models import mlp

import flowjob as flow
import flowjob.typing as tp


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", default=os.path.join("runs", "mlp_models_1"))
    parser.add_argument("--steps", type=int, default=None, help="test batches (default: all)")
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--data-dir", default=".")
    args = parser.parse_args(argv)
    batch = args.batch_size

    @flow.global_function(type="predict")
    def eval_job(
        images: tp.Numpy.Placeholder((batch, 1, 28, 28), dtype=flow.float),
        labels: tp.Numpy.Placeholder((batch,), dtype=flow.int32),
    ) -> tp.Callback[Tuple[tp.Numpy, tp.Numpy]]:
        with flow.scope.placement("cpu", "0:0"):
            logits = mlp(images)
        return labels, logits

    counts = {"total": 0, "correct": 0}

    def acc(arguments: Tuple[tp.Numpy, tp.Numpy]):
        labels, logits = arguments
        counts["correct"] += int(np.sum(np.argmax(logits, 1) == labels))
        counts["total"] += labels.shape[0]

    flow.load_variables(flow.checkpoint.get(args.model_dir))
    _, (test_images, test_labels) = flow.data.load_mnist(batch, batch, out_dir=args.data_dir)
    for i, (images, labels) in enumerate(zip(test_images, test_labels)):
        if args.steps is not None and i >= args.steps:
            break
        eval_job(images, labels)(acc)

    flow.sync_default_session()
    correct, total = counts["correct"], counts["total"]
    print(f"accuracy: {correct * 100 / total:.1f}% ({correct}/{total} test images)")


if __name__ == "__main__":
    main()
