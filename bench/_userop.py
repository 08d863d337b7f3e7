"""User ops with Python kernels inside a compiled train step (issue 21).

The MLP of seed 001 (784-512-10, batch 100, SGD) with its hidden activation, tanh, written
three ways: flowjob's built-in ``flow.math.tanh``; a user op whose kernel is ``jax.numpy``
(``register_python_op(..., kernel="jax")``: traced into the step like any op); and a user op
whose forward and backward kernels are NumPy (run on the host through ``jax.pure_callback``:
the step stops, copies the 100x512 activation to the host, runs Python, copies back, twice
per step counting the gradient).
"""

from __future__ import annotations

import time

import numpy as np

from . import _harness as H
from ._models import LR, N_BATCHES, Variant, batches
from ._sections import Section, goal, rate_cells, table

KERNELS = ("builtin", "jax", "numpy")


def _activation(kernel: str):
    """The hidden activation: a callable on blobs."""
    import jax.numpy as jnp

    import flowjob as flow

    if kernel == "builtin":
        return flow.math.tanh
    op_type = f"bench_{kernel}_tanh"
    if kernel == "jax":
        flow.register_python_op(op_type, jnp.tanh, kernel="jax")
    else:
        flow.register_python_op(
            op_type, np.tanh, backward=lambda x, y, dy: dy * (1 - y * y), kernel="numpy"
        )

    def apply(x):
        return (
            flow.user_op_builder(f"{kernel}_tanh")
            .Op(op_type)
            .Input("in", [x])
            .Output("out")
            .Build()
            .InferAndTryRun()
            .SoleOutputBlob()
        )

    return apply


def userop_variant(kernel: str, batch: int) -> Variant:
    import flowjob as flow
    import flowjob.typing as tp

    act = _activation(kernel)

    @flow.global_function(type="train")
    def job(
        images: tp.Numpy.Placeholder((batch, 1, 28, 28)),
        labels: tp.Numpy.Placeholder((batch,), dtype=flow.int32),
    ) -> tp.Numpy:
        init = flow.truncated_normal(0.1)
        x = flow.reshape(images, [batch, -1])
        hidden = act(flow.layers.dense(x, 512, kernel_initializer=init, name="hidden"))
        logits = flow.layers.dense(hidden, 10, kernel_initializer=init, name="output")
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [LR])).minimize(loss)
        return loss

    data = batches(batch)
    losses: list[float] = []

    def step(i):
        losses.append(float(job(*data[i % N_BATCHES])[0]))

    return Variant(step, flow.sync_default_session, {"losses": losses})


def userop_section(quick: bool) -> Section:
    t0 = time.time()
    rounds = 3 if quick else 10
    names = {
        "builtin": "built-in flow.math.tanh",
        "jax": "user op, jax.numpy kernel",
        "numpy": "user op, NumPy kernels (host callback)",
    }
    workers = H.start_all({names[k]: {"engine": "userop", "kernel": k} for k in KERNELS})
    try:
        series = H.paired_rounds(workers, rounds, H.calibrate(workers, 0.5))
    finally:
        H.close_all(workers)
    rows = [[k, *rate_cells(s)] for k, s in series.items()]
    vs = {k: H.ratio(series, names[k], names["builtin"]) for k in ("jax", "numpy")}
    extra_ms = 1e3 * (1 / series[names["numpy"]].median - 1 / series[names["builtin"]].median)
    md = (
        "Seed 001's MLP train step (784-512-10, batch 100, SGD) with its hidden activation, "
        "tanh, as flowjob's built-in op, as a user op with a `jax.numpy` kernel, and as a user "
        "op with NumPy forward and backward kernels (`jax.pure_callback`: two host round trips "
        f"of the 100×512 activation per step). {rounds} rounds.\n\n"
        + table(["activation", "steps/s", "range"], rows)
        + f"\n\njax.numpy kernel / built-in: {H.fmt_ratio(vs['jax'])}; NumPy kernels / "
        f"built-in: {H.fmt_ratio(vs['numpy'])} (about {extra_ms:.2f} ms more per step)"
    )
    goals = [goal("user op: jax.numpy kernel / built-in", vs["jax"][0], ">=", 0.9)]
    return Section("Python user ops in a compiled step (issue 21)", md, goals, time.time() - t0)
