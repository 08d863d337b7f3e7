"""The benchmarked models (seed 003's MLP 784-512-10 and LeNet) in flowjob, JAX and PyTorch.

Every builder returns a ``Variant``: ``step(i)`` runs one train (or predict) step on batch
``i % 8`` of pre-generated numpy data and fetches the loss to the host, as a job function
returning ``tp.Numpy`` does; ``sync()`` waits for anything still in flight.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

LR = 0.1
N_BATCHES = 8


@dataclass
class Variant:
    step: Callable[[int], Any]
    sync: Callable[[], None] = lambda: None
    extra: dict = field(default_factory=dict)  # engine-specific hooks (profile, counters)


def batches(batch: int, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """MNIST-shaped synthetic data: float32 images in [0, 1), int32 labels."""
    rng = np.random.default_rng(seed)
    return [
        (
            rng.random((batch, 1, 28, 28), dtype=np.float32),
            rng.integers(0, 10, batch).astype(np.int32),
        )
        for _ in range(N_BATCHES)
    ]


def numpy_params(model: str, seed: int = 0) -> dict[str, np.ndarray]:
    """Truncated-normal(0.1) weights, zero biases, flowjob's variable names and layouts."""
    rng = np.random.default_rng(seed)
    shapes = (
        {"hidden-weight": (512, 784), "output-weight": (10, 512)}
        if model == "mlp"
        else {
            "conv1-weight": (32, 1, 5, 5),
            "conv2-weight": (64, 32, 5, 5),
            "dense1-weight": (512, 3136),
            "dense2-weight": (10, 512),
        }
    )
    out = {}
    for name, shape in shapes.items():
        out[name] = (0.1 * np.clip(rng.normal(size=shape), -2, 2)).astype(np.float32)
        out[name.replace("weight", "bias")] = np.zeros(shape[0], np.float32)
    return out


# -- flowjob ------------------------------------------------------------------------------
def flowjob_body(model: str, images, train: bool):
    """Seed 003's ``mlp`` / ``lenet`` (dropout 0.5 in train jobs), returns (hidden, logits)."""
    import flowjob as flow

    init = flow.truncated_normal(0.1)
    if model == "mlp":
        x = flow.reshape(images, [images.shape[0], -1])
        hidden = flow.layers.dense(
            x, 512, activation=flow.nn.relu, kernel_initializer=init, name="hidden"
        )
        return hidden, flow.layers.dense(hidden, 10, kernel_initializer=init, name="output")
    conv1 = flow.layers.conv2d(
        images,
        32,
        5,
        padding="SAME",
        activation=flow.nn.relu,
        kernel_initializer=init,
        name="conv1",
    )
    pool1 = flow.nn.max_pool2d(conv1, ksize=2, strides=2, padding="SAME", name="pool1")
    conv2 = flow.layers.conv2d(
        pool1, 64, 5, padding="SAME", activation=flow.nn.relu, kernel_initializer=init, name="conv2"
    )
    pool2 = flow.nn.max_pool2d(conv2, ksize=2, strides=2, padding="SAME", name="pool2")
    x = flow.reshape(pool2, [pool2.shape[0], -1])
    hidden = flow.layers.dense(
        x, 512, activation=flow.nn.relu, kernel_initializer=init, name="dense1"
    )
    if train:
        hidden = flow.nn.dropout(hidden, rate=0.5)
    return hidden, flow.layers.dense(hidden, 10, kernel_initializer=init, name="dense2")


def flowjob_variant(
    model: str,
    batch: int,
    *,
    train: bool = True,
    watches: bool = False,
    result: str = "numpy",
    devices: int = 1,
    prep: Callable | None = None,
    device: str = "cpu",
    eager: bool = False,
) -> Variant:
    """A flowjob job; ``result`` "numpy" blocks per call, "callback" uses ``tp.Callback``;
    ``device``: the placement's tag ("cpu" / "gpu"); ``eager``: OneFlow's eager mode.

    ``watches`` adds 2 ``watch`` + 1 ``watch_diff`` whose ``tp.Numpy`` handlers read one
    element each."""
    import flowjob as flow
    import flowjob.typing as tp

    if devices > 1:
        flow.config.cpu_device_num(devices)
    if eager:
        flow.enable_eager_execution(True)
    placement = "0:0" if devices == 1 else f"0:0-{devices - 1}"
    seen = {"calls": 0}

    def handler(v: tp.Numpy):  # annotated as seed 001's handlers are
        seen["calls"] += 1
        float(v.flat[0])

    Ret = tp.Callback[tp.Numpy] if result == "callback" else tp.Numpy

    def body(images, labels):
        with flow.scope.placement(device, placement):
            hidden, logits = flowjob_body(model, images, train)
            loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)
            if watches:
                flow.watch(hidden, handler)
                flow.watch(logits, handler)
                flow.watch_diff(hidden, handler)
            if train:
                flow.optimizer.SGD(
                    flow.optimizer.PiecewiseConstantScheduler([], [LR]), momentum=0
                ).minimize(loss)
        return loss

    shape = (batch, 1, 28, 28)

    @flow.global_function(type="train" if train else "predict")
    def job(
        images: tp.Numpy.Placeholder(shape),
        labels: tp.Numpy.Placeholder((batch,), dtype=flow.int32),
    ) -> Ret:
        return body(images, labels)

    data = batches(batch)
    losses = []

    def on_loss(loss):
        losses.append(float(loss[0]))

    def step(i):
        x, y = prep(i) if prep is not None else data[i % N_BATCHES]
        out = job(x, y)
        if result == "callback":
            out(on_loss)
        else:
            on_loss(out)

    return Variant(step, flow.sync_default_session, {"seen": seen, "losses": losses})


# -- hand-written JAX ---------------------------------------------------------------------
def jax_mlp_logits(p, images, key=None, product: str = "matmul"):
    import jax

    from ._lenet_jax import dense

    x = images.reshape(images.shape[0], -1)
    hidden = jax.nn.relu(dense(x, p["hidden-weight"], p["hidden-bias"], product))
    return dense(hidden, p["output-weight"], p["output-bias"], product)


def jax_variant(
    model: str,
    batch: int,
    *,
    layout: str = "nchw_rw",
    train: bool = True,
    prep: Callable | None = None,
    product: str = "matmul",
) -> Variant:
    """``jit`` + ``value_and_grad`` + SGD with donated params; loss fetched every step.

    ``layout`` picks the LeNet lowering (see ``_lenet_jax``); "nchw_rw" is the plain one.
    ``product``: the dense layers as ``x @ w.T`` ("matmul") or one ``dot_general``
    (``_lenet_jax.dense``)."""
    import functools

    import jax
    import jax.numpy as jnp

    from . import _lenet_jax

    def logits_fn(p, x, key):
        if model == "mlp":
            return jax_mlp_logits(p, x, product=product)
        return _lenet_jax.logits(p, x, layout, key, product)

    def loss_fn(p, x, y, key):
        lg = logits_fn(p, x, key)
        return -jnp.take_along_axis(jax.nn.log_softmax(lg), y[:, None], 1)[:, 0]

    @functools.partial(jax.jit, donate_argnums=(0,))
    def train_loss(p, x, y, counter):
        key = jax.random.fold_in(jax.random.PRNGKey(0), counter) if model == "lenet" else None

        def objective(q):
            per_example = loss_fn(q, x, y, key)
            return jnp.mean(per_example), per_example

        (_, losses), grads = jax.value_and_grad(objective, has_aux=True)(p)
        return jax.tree.map(lambda a, g: a - LR * g, p, grads), losses

    @jax.jit
    def predict(p, x, y):
        return loss_fn(p, x, y, None)

    state = {"p": jax.tree.map(jnp.asarray, numpy_params(model))}
    data = batches(batch)
    losses = []

    def step(i):
        x, y = prep(i) if prep is not None else data[i % N_BATCHES]
        if train:
            state["p"], loss = train_loss(state["p"], x, y, np.uint32(i))
        else:
            loss = predict(state["p"], x, y)
        losses.append(float(np.asarray(loss)[0]))

    fn = train_loss if train else predict
    return Variant(step, extra={"jit": fn, "state": state, "data": data, "losses": losses})


# -- PyTorch eager ------------------------------------------------------------------------
def torch_variant(
    model: str,
    batch: int,
    *,
    train: bool = True,
    prep: Callable | None = None,
    device: str = "cpu",
) -> Variant:
    """``nn.Module`` + ``optim.SGD``, ``torch.from_numpy`` inputs, ``loss.item()`` per step
    (``device="cuda"``: model and batches on the GPU)."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.hidden, self.output = nn.Linear(784, 512), nn.Linear(512, 10)

        def forward(self, x):
            return self.output(F.relu(self.hidden(x.flatten(1))))

    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 32, 5, padding=2)
            self.conv2 = nn.Conv2d(32, 64, 5, padding=2)
            self.dense1, self.dense2 = nn.Linear(3136, 512), nn.Linear(512, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = F.dropout(F.relu(self.dense1(x.flatten(1))), 0.5, self.training)
            return self.dense2(x)

    net = MLP() if model == "mlp" else LeNet()
    with torch.no_grad():
        params = numpy_params(model)
        for name, p in net.named_parameters():
            p.copy_(torch.from_numpy(params[name.replace(".", "-")]))
    net.train(train)
    net.to(device)
    opt = torch.optim.SGD(net.parameters(), lr=LR)
    data = batches(batch)
    losses = []

    def step(i):
        x, y = prep(i) if prep is not None else data[i % N_BATCHES]
        x, y = torch.from_numpy(x).to(device), torch.from_numpy(y).long().to(device)
        if train:
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
        else:
            with torch.no_grad():
                loss = F.cross_entropy(net(x), y)
        losses.append(loss.item())

    return Variant(step, extra={"losses": losses})
