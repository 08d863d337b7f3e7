"""ResNet-50 and one ResNeXt bottleneck block, in flowjob, hand-written JAX and PyTorch.

Every convolution is bias-free and followed by batch normalization (training mode: batch
statistics, moving averages updated) and ReLU, as in the torchvision models; the loss is the
mean softmax cross-entropy, the optimizer SGD without momentum. ``flops`` counts the
multiply-adds of convolutions and dense layers (x2 for FLOPs, x3 for forward + both
gradients), the convention of published GFLOP figures; elementwise work is not counted.
"""

from __future__ import annotations

from ._models import N_BATCHES, Variant

LR = 0.01  # (random data: 0.1 diverges within a few steps)

# model -> (input shape without batch, classes, stem?, stages: (blocks, width, out, stride),
# groups of the 3x3 convolutions)
MODELS = {
    "resnet50": (
        (3, 224, 224),
        1000,
        True,
        [(3, 64, 256, 1), (4, 128, 512, 2), (6, 256, 1024, 2), (3, 512, 2048, 2)],
        1,
    ),
    # ResNeXt-50 (32x4d)'s third-stage block, and the same block with groups=1
    "block_g32": ((512, 28, 28), 10, False, [(1, 256, 512, 1)], 32),
    "block_g1": ((512, 28, 28), 10, False, [(1, 256, 512, 1)], 1),
}


def convs(model: str) -> list[tuple]:
    """(name, in, out, kernel, stride, groups, input size) of every convolution, in order."""
    shape, _, stem, stages, groups = MODELS[model]
    c, size = shape[0], shape[1]
    out = []
    if stem:
        out.append(("stem", c, 64, 7, 2, 1, size))
        c, size = 64, size // 4  # 7x7/2 convolution, then 3x3/2 max pooling
    for s, (blocks, width, cout, stride) in enumerate(stages):
        for b in range(blocks):
            st = stride if b == 0 else 1
            name = f"s{s}b{b}"
            out += [
                (f"{name}c1", c, width, 1, 1, 1, size),
                (f"{name}c2", width, width, 3, st, groups, size),
                (f"{name}c3", width, cout, 1, 1, 1, size // st),
            ]
            if b == 0 and (st != 1 or c != cout):
                out.append((f"{name}down", c, cout, 1, st, 1, size))
            c, size = cout, size // st
    return out


def flops(model: str, batch: int) -> float:
    """Train-step FLOPs (3 x 2 x multiply-adds of convolutions and the dense layer)."""
    macs = 0
    for _, cin, cout, k, stride, groups, size in convs(model):
        out = size // stride
        macs += out * out * cout * (cin // groups) * k * k
    shape, classes, _, stages, _ = MODELS[model]
    macs += stages[-1][2] * classes
    return 6.0 * macs * batch


def data(model: str, batch: int):
    import numpy as np

    shape, classes = MODELS[model][:2]
    rng = np.random.default_rng(0)
    return [
        (
            rng.standard_normal((batch, *shape), dtype=np.float32),
            rng.integers(0, classes, batch).astype(np.int32),
        )
        for _ in range(N_BATCHES)
    ]


def _blocks(model: str, conv, pool, add_relu, head, x):
    """Runs the network with engine-specific ``conv(x, spec, relu)`` etc."""
    specs = {s[0]: s for s in convs(model)}
    _, _, stem, stages, _ = MODELS[model]
    if stem:
        x = pool(conv(x, specs["stem"], True))
    for s, (blocks, *_rest) in enumerate(stages):
        for b in range(blocks):
            name = f"s{s}b{b}"
            y = conv(x, specs[f"{name}c1"], True)
            y = conv(y, specs[f"{name}c2"], True)
            y = conv(y, specs[f"{name}c3"], False)
            short = conv(x, specs[f"{name}down"], False) if f"{name}down" in specs else x
            x = add_relu(y, short)
    return head(x)


# -- flowjob ------------------------------------------------------------------------------
def flowjob_variant(model: str, batch: int) -> Variant:
    import flowjob as flow
    import flowjob.typing as tp

    classes = MODELS[model][1]

    def conv(x, spec, relu):
        name, cin, cout, k, stride, groups, _ = spec
        p = k // 2
        y = flow.layers.conv2d(
            x,
            cout,
            k,
            strides=stride,
            padding=[0, 0, p, p],
            groups=groups,
            use_bias=False,
            kernel_initializer=flow.random_normal_initializer(
                stddev=(2.0 / (cin // groups * k * k)) ** 0.5
            ),
            name=name,
        )
        y = flow.layers.batch_normalization(
            y, axis=1, momentum=0.9, epsilon=1e-5, name=f"{name}-bn"
        )
        return flow.nn.relu(y) if relu else y

    def pool(x):
        return flow.nn.max_pool2d(x, ksize=3, strides=2, padding=[0, 0, 1, 1])

    def head(x):
        x = flow.math.reduce_mean(x, axis=[2, 3])
        return flow.layers.dense(
            x, classes, kernel_initializer=flow.random_normal_initializer(stddev=0.01), name="fc"
        )

    shape = (batch, *MODELS[model][0])

    @flow.global_function(type="train")
    def job(
        images: tp.Numpy.Placeholder(shape),
        labels: tp.Numpy.Placeholder((batch,), dtype=flow.int32),
    ) -> tp.Numpy:
        logits = _blocks(model, conv, pool, lambda y, s: flow.nn.relu(y + s), head, images)
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [LR]), momentum=0
        ).minimize(loss)
        return loss

    batches = data(model, batch)
    losses = []

    def step(i):
        x, y = batches[i % N_BATCHES]
        losses.append(float(job(x, y)[0]))

    return Variant(step, flow.sync_default_session, {"losses": losses})


# -- hand-written JAX ---------------------------------------------------------------------
def jax_variant(model: str, batch: int) -> Variant:
    """NCHW ``lax.conv_general_dilated`` with ``feature_group_count`` (the plain translation),
    batch norm with batch statistics and moving averages, ``jit`` with donated state."""
    import functools

    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    classes = MODELS[model][1]
    rng = np.random.default_rng(0)
    params, stats = {}, {}
    for name, cin, cout, k, _, groups, _ in convs(model):
        std = (2.0 / (cin // groups * k * k)) ** 0.5
        params[name] = jnp.asarray(
            std * rng.standard_normal((cout, cin // groups, k, k), dtype=np.float32)
        )
        params[f"{name}-gamma"] = jnp.ones(cout)
        params[f"{name}-beta"] = jnp.zeros(cout)
        stats[name] = (jnp.zeros(cout), jnp.ones(cout))
    width = MODELS[model][3][-1][2]
    params["fc"] = jnp.asarray(0.01 * rng.standard_normal((width, classes), dtype=np.float32))
    params["fc-bias"] = jnp.zeros(classes)

    def forward(p, x):
        new_stats = {}

        def conv(x, spec, relu):
            name, _, _, k, stride, groups, _ = spec
            y = lax.conv_general_dilated(
                x,
                p[name],
                (stride, stride),
                [(k // 2, k // 2)] * 2,
                dimension_numbers=("NCHW", "OIHW", "NCHW"),
                feature_group_count=groups,
            )
            mean = jnp.mean(y, axis=(0, 2, 3))
            var = jnp.mean(jnp.square(y - mean[:, None, None]), axis=(0, 2, 3))
            new_stats[name] = (mean, var)
            y = (y - mean[:, None, None]) * lax.rsqrt(var[:, None, None] + 1e-5)
            y = y * p[f"{name}-gamma"][:, None, None] + p[f"{name}-beta"][:, None, None]
            return jax.nn.relu(y) if relu else y

        def pool(x):
            return lax.reduce_window(
                x, -jnp.inf, lax.max, (1, 1, 3, 3), (1, 1, 2, 2), ((0, 0), (0, 0), (1, 1), (1, 1))
            )

        def head(x):
            return jnp.mean(x, axis=(2, 3)) @ p["fc"] + p["fc-bias"]

        logits = _blocks(model, conv, pool, lambda y, s: jax.nn.relu(y + s), head, x)
        return logits, new_stats

    @functools.partial(jax.jit, donate_argnums=(0, 1))
    def train(p, st, x, y):
        def objective(q):
            logits, batch_stats = forward(q, x)
            per = -jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], 1)[:, 0]
            return jnp.mean(per), (per, batch_stats)

        (_, (per, batch_stats)), grads = jax.value_and_grad(objective, has_aux=True)(p)
        new_p = jax.tree.map(lambda a, g: a - LR * g, p, grads)
        new_st = {
            n: tuple(0.9 * m + 0.1 * lax.stop_gradient(b) for m, b in zip(st[n], bs))
            for n, bs in batch_stats.items()
        }
        return new_p, new_st, per

    state = {"p": params, "st": stats}
    batches = data(model, batch)
    losses = []

    def step(i):
        x, y = batches[i % N_BATCHES]
        state["p"], state["st"], loss = train(state["p"], state["st"], x, y)
        losses.append(float(np.asarray(loss)[0]))

    return Variant(step, extra={"losses": losses})


# -- PyTorch eager ------------------------------------------------------------------------
def torch_variant(model: str, batch: int, device: str = "cpu") -> Variant:
    import torch
    import torch.nn.functional as F
    from torch import nn

    classes = MODELS[model][1]
    layers = nn.ModuleDict()
    for name, cin, cout, k, stride, groups, _ in convs(model):
        layers[name] = nn.Sequential(
            nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
            nn.BatchNorm2d(cout, eps=1e-5, momentum=0.1),
        )
    layers["fc"] = nn.Linear(MODELS[model][3][-1][2], classes)
    layers.train()
    layers.to(device)

    def forward(x):
        def conv(x, spec, relu):
            y = layers[spec[0]](x)
            return F.relu(y) if relu else y

        return _blocks(
            model,
            conv,
            lambda x: F.max_pool2d(x, 3, 2, 1),
            lambda y, s: F.relu(y + s),
            lambda x: layers["fc"](x.mean(dim=(2, 3))),
            x,
        )

    opt = torch.optim.SGD(layers.parameters(), lr=LR)
    batches = data(model, batch)
    losses = []

    def step(i):
        x, y = batches[i % N_BATCHES]
        opt.zero_grad(set_to_none=True)
        x, y = torch.from_numpy(x).to(device), torch.from_numpy(y).long().to(device)
        loss = F.cross_entropy(forward(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())

    return Variant(step, extra={"losses": losses})


def matmul_variant(n: int = 2048) -> Variant:
    """The machine's reference: one ``n x n`` float32 matmul in JAX per step."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    rng = np.random.default_rng(0)
    a = jnp.asarray(rng.standard_normal((n, n), dtype=np.float32))
    b = jnp.asarray(rng.standard_normal((n, n), dtype=np.float32))
    mm = jax.jit(jnp.matmul)

    def step(i):
        mm(a, b).block_until_ready()

    return Variant(step, extra={"flops": 2.0 * n**3})
