"""Trains one MLP in a given parallel mode and prints losses and parameters as JSON.

Run as a script: ``python _train_modes.py MODE DEVICES STEPS [CHECKPOINT_DIR [LOGDIR]]`` (a fresh
process, because the device count must be set before JAX starts).
MODE: single | data | model | mirrored | multi | multi-mirrored (the last two: 2 processes x 2
devices, started with FLOWJOB_COORDINATOR / FLOWJOB_NUM_PROCESSES / FLOWJOB_PROCESS_ID).
"""

import json
import sys

import jax
import jax.numpy as jnp
import numpy as np

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.graph import apply_op

MODE, DEVICES, STEPS = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
BATCH = 16
flow.config.cpu_device_num(DEVICES)


class Normal:
    conf = {"random_normal_conf": {"std": 0.1}}

    def __call__(self, key, shape, dtype):
        return 0.1 * jax.random.normal(key, shape, dtype)


def dense(x, units, name, distribute=None):
    w = flow.get_variable(
        f"{name}-weight", (units, x.shape[1]), initializer=Normal(), distribute=distribute
    )
    b = flow.get_variable(f"{name}-bias", (units,), initializer=Normal(), distribute=distribute)
    return apply_op("dense", lambda a, w, b: a @ w.T + b, [x, w, b])


WATCHED: dict = {}


def body(images, labels):
    split = flow.distribute.split(0) if MODE == "model" else None
    hidden = apply_op("relu", jax.nn.relu, [dense(images, 32, "hidden", split)])
    logits = dense(hidden, 8, "output")
    # watch / watch_diff see whole tensors in every mode (pieces concatenated in device order)
    flow.watch(hidden, lambda v: WATCHED.__setitem__("hidden", v.tolist()))
    flow.watch_diff(logits, lambda g: WATCHED.__setitem__("dlogits", g.tolist()))
    loss = apply_op(
        "xent",
        lambda lab, lg: -jnp.take_along_axis(jax.nn.log_softmax(lg), lab[:, None], 1)[:, 0],
        [labels, logits],
    )
    flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.5]), momentum=0.9).minimize(
        loss
    )
    return loss


MIRRORED = MODE in ("mirrored", "multi-mirrored")
PIECES = 2 * DEVICES if MODE == "multi-mirrored" else DEVICES  # devices of all processes
placement = {"single": "0:0", "multi": ["0:0-1", "1:0-1"], "multi-mirrored": ["0:0-1", "1:0-1"]}
placement = placement.get(MODE, f"0:0-{DEVICES - 1}")
if MIRRORED:
    config = flow.function_config()
    config.default_logical_view(flow.scope.mirrored_view())
    per = BATCH // PIECES

    @flow.global_function(type="train", function_config=config)
    def train(
        images: tp.ListNumpy.Placeholder((per, 12)),
        labels: tp.ListNumpy.Placeholder((per,), dtype=flow.int32),
    ) -> tp.ListNumpy:
        with flow.scope.placement("cpu", placement):
            return body(images, labels)
else:

    @flow.global_function(type="train")
    def train(
        images: tp.Numpy.Placeholder((BATCH, 12)),
        labels: tp.Numpy.Placeholder((BATCH,), dtype=flow.int32),
    ) -> tp.ListNumpy:
        with flow.scope.placement("cpu", placement):
            return body(images, labels)


LOGDIR = sys.argv[5] if len(sys.argv) > 5 else None
if LOGDIR:  # summaries work unchanged: job summary ops are delivered by the first process

    @flow.global_function()
    def create_writer():
        flow.summary.create_summary_writer(LOGDIR)

    @flow.global_function()
    def log_loss(
        value: tp.ListNumpy.Placeholder((1,)),
        step: tp.ListNumpy.Placeholder((1,), dtype=flow.int64),
        tag: tp.ListNumpy.Placeholder((20,), dtype=flow.int8),
    ):
        flow.summary.scalar(value, step, tag)

    create_writer()

rng = np.random.default_rng(0)
losses = []
for _ in range(STEPS):
    x = rng.normal(size=(BATCH, 12)).astype(np.float32)
    y = rng.integers(0, 8, BATCH).astype(np.int32)
    if MIRRORED:
        pieces = train(np.split(x, PIECES), np.split(y, PIECES))
        assert len(pieces) == PIECES
        losses.append(np.concatenate(pieces).tolist())
    else:
        losses.append(np.concatenate(train(x, y)).tolist())
    if LOGDIR:
        log_loss(
            [np.array([np.mean(losses[-1])], np.float32)],
            [np.array([len(losses)], np.int64)],
            [np.frombuffer(b"loss", np.int8)],
        )
params = {k: v.numpy().tolist() for k, v in flow.get_all_variables().items()}
flow.sync_default_session()
if len(sys.argv) > 4:  # checkpoints work unchanged: the first process writes them
    flow.checkpoint.save(sys.argv[4])
session = flow._src.runtime.default_session()
lowered = session.compiled_job(train).lowered
weight = session.variables.values["hidden-weight"]
print(
    json.dumps(
        {
            "losses": losses,
            "params": params,
            "devices": len(jax.devices()),
            "watched": WATCHED,
            "mesh": 1 if lowered.mesh is None else lowered.mesh.size,
            "weight_spec": str(getattr(weight.sharding, "spec", None)),
            "process": jax.process_index(),
        }
    )
)
