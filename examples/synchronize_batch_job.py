"""Synchronous results, several at once: evaluate the LeNet saved by synchronize_single_job.py.

    python examples/synchronize_batch_job.py [--model-dir DIR] [--steps N]

The job returns ``(labels, logits)`` annotated ``-> Tuple[tp.Numpy, tp.Numpy]``; each call
blocks and gives both arrays. Prints the accuracy on the test images.
"""

import argparse
import os
from typing import Tuple

import numpy as np
from models import lenet

import flowjob as flow
import flowjob.typing as tp


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", default=os.path.join("runs", "lenet_models_1"))
    parser.add_argument("--steps", type=int, default=None, help="test batches (default: all)")
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--data-dir", default=".")
    args = parser.parse_args(argv)
    batch = args.batch_size

    @flow.global_function(type="predict")
    def eval_job(
        images: tp.Numpy.Placeholder((batch, 1, 28, 28), dtype=flow.float),
        labels: tp.Numpy.Placeholder((batch,), dtype=flow.int32),
    ) -> Tuple[tp.Numpy, tp.Numpy]:
        with flow.scope.placement("cpu", "0:0"):
            logits = lenet(images, train=False)
        return labels, logits

    flow.load_variables(flow.checkpoint.get(args.model_dir))
    _, (test_images, test_labels) = flow.data.load_mnist(batch, batch, out_dir=args.data_dir)
    total = correct = 0
    for i, (images, labels) in enumerate(zip(test_images, test_labels)):
        if args.steps is not None and i >= args.steps:
            break
        labels, logits = eval_job(images, labels)
        correct += int(np.sum(np.argmax(logits, 1) == labels))
        total += labels.shape[0]
    print(f"accuracy: {correct * 100 / total:.1f}% ({correct}/{total} test images)")


if __name__ == "__main__":
    main()
