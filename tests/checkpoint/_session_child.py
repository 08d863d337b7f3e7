"""Child process for test_checkpoint_session.py: a small MNIST MLP trained with momentum SGD.

Usage: ``python _session_child.py MODE PATH OUT [MARKER]``; results go to the ``OUT`` .npz.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.checkpoint import _oneflow_dir

B = 100


def model(images):
    init = flow.truncated_normal_initializer(stddev=0.1)
    flat = flow.reshape(images, [B, -1])
    hidden = flow.layers.dense(
        flat, 32, activation=flow.nn.relu, kernel_initializer=init, name="hidden"
    )
    return flow.layers.dense(hidden, 10, kernel_initializer=init, name="output")


@flow.global_function(type="train")
def train_job(
    images: tp.Numpy.Placeholder((B, 1, 28, 28)),
    labels: tp.Numpy.Placeholder((B,), dtype=flow.int32),
) -> tp.Numpy:
    loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, model(images))
    lr = flow.optimizer.PiecewiseConstantScheduler([], [0.1])
    flow.optimizer.SGD(lr, momentum=0.9).minimize(loss)
    return loss


@flow.global_function(type="predict")
def eval_job(images: tp.Numpy.Placeholder((B, 1, 28, 28))) -> tp.Numpy:
    return model(images)


def _write(out: str, **arrays) -> None:
    np.savez(out + ".part.npz", **arrays)
    os.replace(out + ".part.npz", out)  # the parent must never see a half-written result


def main(mode: str, path: str, out: str, marker: str | None = None) -> None:
    (x_train, y_train), (x_test, _) = flow.data.load_mnist(B, B, out_dir=os.path.dirname(out))

    def train(steps, start=0):
        return [train_job(x_train[i], y_train[i]).mean() for i in range(start, start + steps)]

    def step():
        return flow.get_all_variables()["System-Train-TrainStep-train_job"].numpy()

    if mode == "train_save":
        train(5)
        flow.checkpoint.save(path)
        pred, saved_step = eval_job(x_test[0]), step()
        _write(
            out,
            pred=pred,
            step=saved_step,
            next_loss=train(1, start=5),
            names=np.array(sorted(flow.get_all_variables())),
        )
    elif mode == "load":
        initial = eval_job(x_test[0])
        flow.load_variables(flow.checkpoint.get(path))
        _write(
            out, initial=initial, pred=eval_job(x_test[0]), step=step(), next_loss=train(1, start=5)
        )
    elif mode == "kill_mid_save":
        manager = flow.train.SimpleCheckPointManager(path)
        train(5)
        manager.save()
        _write(out, pred=eval_job(x_test[0]), step=step())
        train(3, start=5)
        real_write, written = _oneflow_dir.write_file, []

        def slow_write(file_path, chunks):
            real_write(file_path, chunks)
            written.append(file_path)
            if len(written) == 3:  # part of the variables are on disk: hang to be killed
                open(marker, "w").close()
                time.sleep(300)

        _oneflow_dir.write_file = slow_write
        manager.save()
    elif mode == "restore":
        manager = flow.train.SimpleCheckPointManager(path)
        manager.initialize_or_restore()
        _write(out, pred=eval_job(x_test[0]), step=step(), latest=manager.latest_checkpoint())
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main(*sys.argv[1:])
