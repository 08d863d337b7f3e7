"""OneFlow v0.4's flow.model scenario (test/ops/test_model.py: x + w trained with SGD(lr=1),
validated every step, saved every 5 steps) written as a lazy OneFlow program.

Run with ``flowjob run lazy_model_program.py WORKDIR``; exits non-zero if a check fails.
Differences from the eager original: the start value of ``w`` comes from a checkpoint
(``config_load``), and in a lazy train job a returned variable holds the value the step's
forward pass used (before the update), where the eager test read the updated parameter.
"""

import os
import sys

import numpy as np
import oneflow as flow
import oneflow.typing as tp

start = np.random.RandomState(7).randn(2, 3).astype(np.float32)
ones = np.ones((2, 3), np.float32)
expected_w = start.copy()
log = []


def variable_w():
    return flow.get_variable(
        "w", shape=(2, 3), dtype=flow.float32, initializer=flow.zeros_initializer()
    )


class PlusW(flow.model.Model):
    def forward(self, x):
        return x + variable_w()

    def training_step(self, batch, optimizer_idx):
        (x,) = batch
        return flow.math.reduce_sum(self(x)), variable_w()

    def validation_step(self, batch):
        return self(batch[0])

    def configure_optimizers(self):
        return flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [1.0]), momentum=0.0
        )


class Ones(flow.model.NumpyDataModule):
    def forward(self, step_idx=0, optimizer_idx=0):
        return (ones,)


class Check(flow.model.Callback):
    def on_training_step_end(self, outputs, step_idx, optimizer_idx):
        global expected_w
        loss, w = outputs
        assert np.allclose(loss.numpy(), np.sum(ones + expected_w), 1e-4, 1e-4), step_idx
        assert np.allclose(w.numpy(), expected_w, 1e-4, 1e-4), step_idx
        expected_w = expected_w - 1.0  # d(sum(x + w))/dw = 1, lr = 1
        log.append(("train", step_idx))

    def on_validation_step_end(self, outputs, step_idx):
        assert np.allclose(outputs.numpy(), ones + expected_w, 1e-4, 1e-4), step_idx
        log.append(("val", step_idx))


work = sys.argv[1]  # an empty directory
flow.checkpoint.save(os.path.join(work, "start"), {"w": start})

train = flow.model.TrainingConfig()
train.config_data(Ones())
val = flow.model.ValidationConfig()
val.config_data(Ones())
val.config_step_interval(1)
ck = flow.model.CheckpointConfig()
ck.config_load(dirpath=os.path.join(work, "start"))
ck.config_save(dirpath=os.path.join(work, "model"), step_interval=5)

PlusW().fit(
    training_config=train,
    validation_config=val,
    checkpoint_config=ck,
    callbacks=Check(),
    max_steps=10,
)
assert log == [(kind, s) for s in range(10) for kind in ("train", "val")], log
assert sorted(os.listdir(work)) == ["model-4", "model-9", "start"], os.listdir(work)

flow.clear_default_session()


@flow.global_function(type="predict")
def read_w() -> tp.Numpy:
    return variable_w()


flow.load_variables(flow.checkpoint.get(os.path.join(work, "model-9")))
step_9 = read_w()
flow.load_variables(flow.checkpoint.get(os.path.join(work, "model-4")))
step_4 = read_w()
assert np.allclose(step_9, step_4 - 5, 1e-4, 1e-4)
assert np.allclose(step_9, start - 10, 1e-4, 1e-4)
print("lazy model program: OK")
sys.exit(0)
