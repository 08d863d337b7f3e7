"""One rank of the multi-process step benchmark: ``python -m bench._multiproc_worker ROUNDS
STEPS DEVICES`` with FLOWJOB_COORDINATOR / FLOWJOB_NUM_PROCESSES / FLOWJOB_PROCESS_ID set
(DEVICES: CPU devices per process).

Both engines live in this process, on the same ``jax.distributed`` mesh: ``flowjob``, a train
job (a small MLP, SGD) called with a NumPy batch and returning the loss (``tp.Numpy``);
``jax``, the same step written in plain JAX (parameters replicated, the batch split, the loss
fetched), the reference. Each round times STEPS steps of each, in alternating order, so both
see the same machine load. Prints the seconds of each step of each round as JSON.
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np

BATCH, FEATURES, HIDDEN, CLASSES = 64, 32, 64, 10


def _data(steps: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(0)  # the same batches in every process
    return [
        (
            rng.normal(size=(BATCH, FEATURES)).astype(np.float32),
            rng.integers(0, CLASSES, BATCH).astype(np.int32),
        )
        for _ in range(steps)
    ]


def _flowjob_step(devices: int):
    import flowjob as flow
    import flowjob.typing as tp

    flow.config.cpu_device_num(devices)

    @flow.global_function(type="train")
    def train(
        x: tp.Numpy.Placeholder((BATCH, FEATURES)),
        y: tp.Numpy.Placeholder((BATCH,), dtype=flow.int32),
    ) -> tp.Numpy:
        init = flow.random_normal_initializer(stddev=0.1)
        hidden = flow.layers.dense(x, HIDDEN, activation=flow.nn.relu, kernel_initializer=init)
        logits = flow.layers.dense(hidden, CLASSES, kernel_initializer=init)
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(y, logits)
        # plain SGD, as the JAX step (OneFlow's default momentum 0.9 would add a state)
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0
        ).minimize(loss)
        return loss

    return train


def _jax_step(devices: int):
    import jax
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    # jax.distributed and the device count: started by flowjob's first call, same mesh
    assert len(jax.devices()) == devices * int(os.environ["FLOWJOB_NUM_PROCESSES"])
    mesh = Mesh(np.array(jax.devices()), ("d",))
    repl, split = NamedSharding(mesh, PartitionSpec()), NamedSharding(mesh, PartitionSpec("d"))
    rng = np.random.default_rng(1)
    params = {
        "w1": 0.1 * rng.normal(size=(FEATURES, HIDDEN)).astype(np.float32),
        "b1": np.zeros(HIDDEN, np.float32),
        "w2": 0.1 * rng.normal(size=(HIDDEN, CLASSES)).astype(np.float32),
        "b2": np.zeros(CLASSES, np.float32),
    }

    def to_global(value, sharding):
        return jax.make_array_from_callback(value.shape, sharding, lambda index: value[index])

    state = {k: to_global(v, repl) for k, v in params.items()}

    def loss_fn(p, x, y):
        hidden = jax.nn.relu(x @ p["w1"] + p["b1"])
        logits = hidden @ p["w2"] + p["b2"]
        return -jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], 1)[:, 0]

    def step(p, x, y):
        loss, grads = jax.value_and_grad(lambda p: loss_fn(p, x, y).mean())(p)
        del loss
        new = jax.tree.map(lambda a, g: a - 0.1 * g, p, grads)
        return new, loss_fn(p, x, y)

    shardings = {k: repl for k in params}
    jitted = jax.jit(
        step,
        donate_argnums=(0,),
        in_shardings=(shardings, split, split),
        out_shardings=(shardings, repl),
    )

    def train(x, y):
        nonlocal state
        state, loss = jitted(state, to_global(x, split), to_global(y, split))
        return np.asarray(loss)

    return train


def main() -> None:
    rounds, steps, devices = (int(a) for a in sys.argv[1:4])
    engines = {"flowjob": _flowjob_step(devices)}
    batches = _data(steps)
    for x, y in batches[:5]:  # compiles; starts jax.distributed
        engines["flowjob"](x, y)
    engines["jax"] = _jax_step(devices)
    for x, y in batches[:5]:
        engines["jax"](x, y)
    times: dict[str, list[list[float]]] = {"flowjob": [], "jax": []}
    for r in range(rounds):
        for name in ("flowjob", "jax") if r % 2 == 0 else ("jax", "flowjob"):
            train, segment = engines[name], []
            for x, y in batches:
                t0 = time.perf_counter()
                train(x, y)
                segment.append(time.perf_counter() - t0)
            times[name].append(segment)
    print(json.dumps(times), flush=True)


if __name__ == "__main__":
    main()
