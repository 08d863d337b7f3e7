"""A face-recognition trainer for the first-call section (issue 35): MobileFaceNet (112x112
RGB, a 128-wide embedding) with an ArcFace head over 85,744 identities (MS1M-ArcFace's
class count), in flowjob and plain JAX.

The backbone is MobileFaceNet as InsightFace defines it (blocks 1, 4, 6, 2): every
convolution is bias-free and followed by batch normalization, and by PReLU unless it is a
linear projection; a residual block is a 1x1 expansion, a 3x3 depthwise convolution and a
linear 1x1 projection; the head is a 7x7 depthwise "global" convolution, a dense layer and a
batch norm without scale. The ArcFace head multiplies the L2-normalized embedding with the
L2-normalized class weights, adds the angular margin 0.5 to each row's own class and scales
by 64 before the softmax cross-entropy; SGD with momentum 0.9 trains it.

flowjob's version is written with OneFlow's API the way OneFlow's InsightFace port writes it
(``get_variable`` weights, ``nn.conv2d`` with ``groups``, ``layers.batch_normalization``,
``layers.prelu`` shared over height and width, ``math.l2_normalize``,
``combined_margin_loss``); the JAX one is the plain translation.
"""

from __future__ import annotations

import math

import numpy as np

from ._models import N_BATCHES, Variant

CLASSES, EMBEDDING, SIZE = 85744, 128, 112
MARGIN, SCALE = 0.5, 64.0
LR, MOMENTUM = 0.1, 0.9


def layers() -> list[tuple]:
    """(name, in, out, kernel, stride, groups, activation, residual input or None) of every
    convolution in order; ``residual`` names the tensor the layer's output is added to."""
    out = [
        ("conv_1", 3, 64, 3, 2, 1, True, None),
        ("conv_2_dw", 64, 64, 3, 1, 64, True, None),
    ]

    def block(name, cin, cout, expand, stride, residual):
        out.extend(
            [
                (f"{name}_sep", cin, expand, 1, 1, 1, True, None),
                (f"{name}_dw", expand, expand, 3, stride, expand, True, None),
                (f"{name}_proj", expand, cout, 1, 1, 1, False, residual),
            ]
        )

    for stage, (cin, cout, expand, blocks, down_expand) in enumerate(
        [(64, 64, 128, 4, 128), (64, 128, 256, 6, 256), (128, 128, 256, 2, 512)]
    ):
        block(f"dconv_{stage}", cin, cout, down_expand, 2, None)
        for b in range(blocks):
            block(f"res_{stage}_{b}", cout, cout, expand, 1, "shortcut")
    out.append(("conv_6_sep", 128, 512, 1, 1, 1, True, None))
    out.append(("conv_6_dw", 512, 512, 7, 1, 512, False, None))  # 7x7 -> 1x1, no padding
    return out


def data(batch: int, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [
        (
            rng.standard_normal((batch, 3, SIZE, SIZE), dtype=np.float32),
            rng.integers(0, CLASSES, batch).astype(np.int32),
        )
        for _ in range(N_BATCHES)
    ]


def _backbone(conv, x):
    """Runs the layers with an engine's ``conv(x, spec) -> y``; residual adds by the spec."""
    shortcut = x
    for spec in layers():
        if spec[0].endswith("_sep"):
            shortcut = x
        x = conv(x, spec)
        if spec[7] == "shortcut":
            x = x + shortcut
    return x


def _std(cin: int, groups: int, k: int) -> float:
    return math.sqrt(2.0 / (cin // groups * k * k))


# -- flowjob ------------------------------------------------------------------------------
def flowjob_variant(batch: int) -> Variant:
    import flowjob as flow
    import flowjob.typing as tp

    def conv(x, spec):
        name, cin, cout, k, stride, groups, act, _ = spec
        weight = flow.get_variable(
            f"{name}-weight",
            shape=(cout, cin // groups, k, k),
            initializer=flow.random_normal_initializer(stddev=_std(cin, groups, k)),
        )
        pad = 0 if k == 7 else k // 2
        y = flow.nn.conv2d(x, weight, stride, [0, 0, pad, pad], groups=groups, name=name)
        y = flow.layers.batch_normalization(
            y, axis=1, momentum=0.9, epsilon=2e-5, name=f"{name}-bn"
        )
        return flow.layers.prelu(y, shared_axes=(2, 3), name=f"{name}-prelu") if act else y

    @flow.global_function(type="train")
    def job(
        images: tp.Numpy.Placeholder((batch, 3, SIZE, SIZE)),
        labels: tp.Numpy.Placeholder((batch,), dtype=flow.int32),
    ) -> tp.Numpy:
        body = _backbone(conv, images)
        fc1 = flow.layers.dense(
            flow.reshape(body, (batch, 512)),
            EMBEDDING,
            kernel_initializer=flow.random_normal_initializer(stddev=0.05),
            name="fc1",
        )
        fc1 = flow.layers.batch_normalization(fc1, axis=1, scale=False, name="fc1-bn")
        weight = flow.get_variable(
            "fc7-weight",
            (CLASSES, EMBEDDING),
            initializer=flow.random_normal_initializer(stddev=0.01),
        )
        cosine = flow.matmul(
            flow.math.l2_normalize(fc1, axis=1),
            flow.math.l2_normalize(weight, axis=1),
            transpose_b=True,
        )
        logits = flow.combined_margin_loss(cosine, labels, m1=1.0, m2=MARGIN, m3=0.0) * SCALE
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [LR]), momentum=MOMENTUM
        ).minimize(loss)
        return loss

    batches = data(batch)
    losses: list[float] = []

    def step(i):
        x, y = batches[i % N_BATCHES]
        losses.append(float(np.asarray(job(x, y)).mean()))

    return Variant(step, flow.sync_default_session, {"losses": losses})


# -- hand-written JAX ---------------------------------------------------------------------
def jax_variant(batch: int) -> Variant:
    import functools

    import jax
    import jax.numpy as jnp
    from jax import lax

    rng = np.random.default_rng(0)
    params, stats = {}, {}
    for name, cin, cout, k, _, groups, act, _ in layers():
        params[name] = jnp.asarray(
            _std(cin, groups, k) * rng.standard_normal((cout, cin // groups, k, k), np.float32)
        )
        params[f"{name}-gamma"] = jnp.ones(cout)
        params[f"{name}-beta"] = jnp.zeros(cout)
        if act:
            params[f"{name}-alpha"] = jnp.zeros(cout)
        stats[name] = (jnp.zeros(cout), jnp.ones(cout))
    params["fc1"] = jnp.asarray(0.05 * rng.standard_normal((512, EMBEDDING), np.float32))
    params["fc1-bias"] = jnp.zeros(EMBEDDING)
    params["fc1-beta"] = jnp.zeros(EMBEDDING)
    stats["fc1"] = (jnp.zeros(EMBEDDING), jnp.ones(EMBEDDING))
    params["fc7"] = jnp.asarray(0.01 * rng.standard_normal((CLASSES, EMBEDDING), np.float32))

    def batch_norm(y, axes, name, new_stats):
        mean = jnp.mean(y, axis=axes, keepdims=True)
        var = jnp.mean(jnp.square(y - mean), axis=axes, keepdims=True)
        new_stats[name] = (mean.reshape(-1), var.reshape(-1))
        return (y - mean) * lax.rsqrt(var + 2e-5)

    def normalize(v):
        return v * lax.rsqrt(jnp.maximum(jnp.sum(v * v, axis=1, keepdims=True), 1e-12))

    def loss_fn(p, x, labels):
        new_stats = {}

        def conv(x, spec):
            name, _, _, k, stride, groups, act, _ = spec
            pad = 0 if k == 7 else k // 2
            y = lax.conv_general_dilated(
                x,
                p[name],
                (stride, stride),
                [(pad, pad)] * 2,
                dimension_numbers=("NCHW", "OIHW", "NCHW"),
                feature_group_count=groups,
            )
            y = batch_norm(y, (0, 2, 3), name, new_stats)
            y = y * p[f"{name}-gamma"][:, None, None] + p[f"{name}-beta"][:, None, None]
            if act:
                y = jnp.where(y > 0, y, y * p[f"{name}-alpha"][:, None, None])
            return y

        body = _backbone(conv, x).reshape(batch, 512)
        fc1 = batch_norm(body @ p["fc1"] + p["fc1-bias"], (0,), "fc1", new_stats) + p["fc1-beta"]
        cosine = normalize(fc1) @ normalize(p["fc7"]).T
        target = jax.nn.one_hot(labels, CLASSES, dtype=bool)
        theta = jnp.arccos(jnp.clip(jnp.where(target, cosine, 0.0), -1.0, 1.0))
        logits = SCALE * jnp.where(target, jnp.cos(theta + MARGIN), cosine)
        per = -jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], 1)[:, 0]
        return jnp.mean(per), (per, new_stats)

    @functools.partial(jax.jit, donate_argnums=(0, 1, 2))
    def train(p, velocity, st, x, labels):
        (_, (per, batch_stats)), g = jax.value_and_grad(loss_fn, has_aux=True)(p, x, labels)
        velocity = jax.tree.map(lambda v, g: MOMENTUM * v - LR * g, velocity, g)
        p = jax.tree.map(jnp.add, p, velocity)
        st = {
            n: tuple(0.9 * m + 0.1 * lax.stop_gradient(b) for m, b in zip(st[n], bs))
            for n, bs in batch_stats.items()
        }
        return p, velocity, st, per

    state = {"p": params, "v": jax.tree.map(jnp.zeros_like, params), "st": stats}
    batches = data(batch)
    losses: list[float] = []

    def step(i):
        x, y = batches[i % N_BATCHES]
        state["p"], state["v"], state["st"], per = train(state["p"], state["v"], state["st"], x, y)
        losses.append(float(np.asarray(per).mean()))

    return Variant(step, extra={"losses": losses})
