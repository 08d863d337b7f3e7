"""One rank of a small multi-process training job that misbehaves on purpose.

``python _rank_program.py SCENARIO WORKDIR`` with FLOWJOB_COORDINATOR / FLOWJOB_NUM_PROCESSES /
FLOWJOB_PROCESS_ID set. Prints ``step N`` after each step (flushed) and ``finished`` at the end.
SCENARIO: train | raise | kill | freeze | sigterm | slow-sigterm | digest | checkpoint |
callbacks, and the ways a rank leaves early or runs another program (issue 48): exit0 | exit3
(``sys.exit`` at step 5) | os-exit (``os._exit(0)`` at step 5) | short (its loop ends after 5
steps) | extra-op (its train job has one op more) | other-first (its first call is to
``predict``) | save-alone (it alone saves at step 3) | restart (it fails before joining: its
checkpoint is missing)
"""

import json
import os
import signal
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.graph import apply_op

SCENARIO, WORKDIR = sys.argv[1], sys.argv[2]
RANK = int(os.environ["FLOWJOB_PROCESS_ID"])
FAILING = int(os.environ.get("FAILING_RANK", "1"))  # the rank that misbehaves
STEPS = 100_000 if SCENARIO.endswith("sigterm") else 8
flow.config.cpu_device_num(1)


@flow.global_function(type="train")
def train(x: tp.Numpy.Placeholder((12, 4)), y: tp.Numpy.Placeholder((12, 1))) -> tp.Numpy:
    w = flow.get_variable("w", (4, 1), initializer=flow.zeros_initializer())
    loss = apply_op("mse", lambda x, w, y: jnp.mean((x @ w - y) ** 2, keepdims=True), [x, w, y])
    flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1])).minimize(loss)
    return loss


if SCENARIO == "extra-op" and RANK == FAILING:  # the same job with one op more

    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((12, 4)), y: tp.Numpy.Placeholder((12, 1))) -> tp.Numpy:
        w = flow.get_variable("w", (4, 1), initializer=flow.zeros_initializer())
        loss = apply_op("mse", lambda x, w, y: jnp.mean((x @ w - y) ** 2, keepdims=True), [x, w, y])
        loss = apply_op("double", lambda v: v * 2, [loss])
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1])).minimize(loss)
        return loss


@flow.global_function()
def predict(x: tp.Numpy.Placeholder((12, 4))) -> tp.Callback[tp.Numpy]:
    return apply_op("row_sum", lambda x: x.sum(1), [x])


if SCENARIO == "sigterm":
    flow.env.on_preemption(lambda: flow.checkpoint.save(os.path.join(WORKDIR, "preempted")))
if SCENARIO == "slow-sigterm":  # a preemption callback that outlasts a second SIGTERM

    @flow.env.on_preemption
    def slow():
        print("preemption callback started", flush=True)
        time.sleep(120)


rng = np.random.default_rng(0)
delivered = []
if SCENARIO == "restart" and RANK == FAILING:  # its checkpoint is missing: fails before joining
    flow.load_variables(flow.checkpoint.get(os.path.join(WORKDIR, "missing-checkpoint")))
if SCENARIO == "other-first" and RANK == FAILING:
    predict(np.zeros((12, 4), np.float32)).get()
for step in range(5 if SCENARIO == "short" and RANK == FAILING else STEPS):
    x = rng.normal(size=(12, 4)).astype(np.float32)
    y = x.sum(1, keepdims=True).astype(np.float32)
    if SCENARIO == "digest" and RANK == 1:
        x = x + 1
    if step == 5 and RANK == FAILING:
        if SCENARIO == "raise":
            raise ValueError("boom at step 5")
        if SCENARIO == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if SCENARIO == "freeze":
            os.kill(os.getpid(), signal.SIGSTOP)
        if SCENARIO in ("exit0", "exit3"):
            sys.exit(int(SCENARIO[-1]))
        if SCENARIO == "os-exit":
            os._exit(0)
    if step == 3 and RANK == FAILING and SCENARIO == "save-alone":
        flow.checkpoint.save(os.path.join(WORKDIR, f"alone-{RANK}"))
    if SCENARIO == "callbacks":  # each rank waits for its own callback, without syncing
        predict(x)(delivered.append)
        deadline = time.monotonic() + 60
        while len(delivered) <= step:
            assert time.monotonic() < deadline, f"rank {RANK}: callback of step {step} never ran"
            time.sleep(0.005)
        np.testing.assert_allclose(delivered[step], x.sum(1), rtol=1e-6)
    loss = train(x, y)
    print(f"step {step} loss {float(loss.mean()):.6f}", flush=True)
    if SCENARIO.endswith("sigterm"):
        time.sleep(0.05)

if SCENARIO == "checkpoint":
    path = os.path.join(WORKDIR, "ckpt")
    flow.checkpoint.save(path)
    saved = flow.checkpoint.get(path)  # at once, in every rank: the save is complete
    mine = flow.get_all_variables()["w"].numpy()
    np.testing.assert_array_equal(saved["w"].numpy(), mine)
print(json.dumps({"finished": RANK, "devices": len(jax.devices())}), flush=True)
