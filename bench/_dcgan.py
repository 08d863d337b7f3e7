"""OneFlow-Benchmark's DCGAN (``Generative/dcgan.py``): one discriminator step and one generator
step per iteration at batch 100 on MNIST-shaped data, in flowjob (the program's own legacy API:
``FunctionConfig`` with Adam, ``FixedTensorDef`` arguments, variables shared by name between
the two jobs) and in PyTorch eager with the same layers (issue 47's goal: flowjob at least as
fast).

The generator: dense 100 -> 256·7·7 (no bias), batch norm, leaky ReLU 0.3, then transposed
5×5 convolutions 256 -> 128 (stride 1), 128 -> 64 and 64 -> 1 (stride 2, TensorFlow's SAME),
batch norm and leaky ReLU between them, tanh. The discriminator: 5×5 stride-2 convolutions
1 -> 64 -> 128 with bias, leaky ReLU 0.3 and dropout 0.3, dense 6272 -> 1 (no bias). Both
losses are sigmoid cross-entropy; the discriminator step runs the generator forward (its
variables not trained) and the discriminator on the fakes and on the real images; the
generator step back-propagates through the discriminator, whose variables it does not train.
(``dcgan.py`` leaves its generator's batch-norm scales trainable in the discriminator step,
which makes that step back-propagate through the generator; here, as in the PyTorch model, a
step trains one network only.)
PyTorch's transposed convolutions pad (2, 2) with ``output_padding`` 1 where TensorFlow's SAME
pads (1, 2): the same work, offset by one row.
"""

from __future__ import annotations

import time

import numpy as np

from . import _harness as H
from ._models import N_BATCHES, Variant
from ._sections import Section, goal, rate_cells, table

BATCH = 100
Z_DIM = 100
LR = 1e-4


def data(batch: int):
    rng = np.random.default_rng(0)
    return [
        (
            rng.standard_normal((batch, Z_DIM), dtype=np.float32),
            rng.uniform(-1, 1, (batch, 1, 28, 28)).astype(np.float32),
        )
        for _ in range(N_BATCHES)
    ]


def flops(batch: int) -> float:
    """Multiply-adds of one iteration's dense and (transposed) convolution layers, x2 for
    FLOPs (the first convolution's input gradient and the dense layer's are counted too)."""
    g = 100 * 12544 + 7 * 7 * 128 * 256 * 25 + 14 * 14 * 64 * 128 * 25 + 28 * 28 * 64 * 25
    d = 14 * 14 * 64 * 25 + 7 * 7 * 128 * 64 * 25 + 6272
    d_step = g + 6 * d  # G forward; D forward and both gradients, on fakes and on reals
    g_step = 3 * g + 2 * d  # G forward and both gradients; D forward and input gradient
    return 2.0 * batch * (d_step + g_step)


# -- flowjob: dcgan.py's layers, in OneFlow v0.4's legacy API ------------------------------
def flowjob_variant(batch: int) -> Variant:
    import flowjob as flow

    def normal():
        return flow.random_normal_initializer(stddev=0.02)

    def deconv(x, filters, stride, name, trainable):
        w = flow.get_variable(
            f"{name}-weight", (x.shape[1], filters, 5, 5), initializer=normal(),
            trainable=trainable,
        )  # fmt: skip
        shape = (x.shape[0], x.shape[1], x.shape[2] * stride, x.shape[3] * stride)
        return flow.nn.conv2d_transpose(
            x, w, strides=[stride, stride], output_shape=shape, padding="SAME", name=name
        )

    def conv(x, filters, name, trainable, reuse):
        w = flow.get_variable(
            f"{name}-weight", (filters, x.shape[1], 5, 5), initializer=normal(),
            trainable=trainable, reuse=reuse,
        )  # fmt: skip
        b = flow.get_variable(
            f"{name}-bias", (filters,), initializer=flow.constant_initializer(0.0),
            trainable=trainable, reuse=reuse,
        )  # fmt: skip
        op = name if not reuse else f"{name}_reuse"
        y = flow.nn.compat_conv2d(x, w, strides=[2, 2], padding="same", name=op)
        return flow.nn.bias_add(y, b, "NCHW")

    def dense(x, units, name, trainable=True, reuse=False):
        w = flow.get_variable(
            f"{name}-weight", (units, x.shape[1]), initializer=normal(),
            trainable=trainable, reuse=reuse,
        )  # fmt: skip
        return flow.matmul(x, w, transpose_b=True)

    def batch_norm(x, name, trainable):
        return flow.layers.batch_normalization(x, axis=1, name=name, trainable=trainable)

    def generator(z, trainable):
        h = dense(z, 7 * 7 * 256, "g_fc1", trainable)
        h = flow.nn.leaky_relu(batch_norm(h, "g_bn1", trainable), 0.3)
        h = flow.reshape(h, (-1, 256, 7, 7))
        for i, (filters, stride) in enumerate([(128, 1), (64, 2)]):
            h = deconv(h, filters, stride, f"g_deconv{i + 1}", trainable)
            h = flow.nn.leaky_relu(batch_norm(h, f"g_bn{i + 2}", trainable), 0.3)
        return flow.math.tanh(deconv(h, 1, 2, "g_deconv3", trainable))

    def discriminator(img, trainable, reuse=False):
        h = img
        for filters, name in ((64, "d_conv1"), (128, "d_conv2")):
            h = flow.nn.leaky_relu(conv(h, filters, name, trainable, reuse), 0.3)
            h = flow.nn.dropout(h, rate=0.3)
        return dense(flow.reshape(h, (batch, -1)), 1, "d_fc", trainable, reuse)

    config = flow.FunctionConfig()
    config.default_data_type(flow.float)
    config.train.primary_lr(LR)
    config.train.model_update_conf(dict(adam_conf={}))

    @flow.global_function(config)
    def train_generator(z=flow.FixedTensorDef((batch, Z_DIM))):  # noqa: B008 - its idiom
        logits = discriminator(generator(z, trainable=True), trainable=False)
        loss = flow.nn.sigmoid_cross_entropy_with_logits(flow.ones_like(logits), logits)
        flow.losses.add_loss(loss)
        return loss

    @flow.global_function(config)
    def train_discriminator(
        z=flow.FixedTensorDef((batch, Z_DIM)),  # noqa: B008
        images=flow.FixedTensorDef((batch, 1, 28, 28)),  # noqa: B008
    ):
        fake = discriminator(generator(z, trainable=False), trainable=True)
        real = discriminator(images, trainable=True, reuse=True)
        loss = flow.nn.sigmoid_cross_entropy_with_logits(
            flow.zeros_like(fake), fake
        ) + flow.nn.sigmoid_cross_entropy_with_logits(flow.ones_like(real), real)
        flow.losses.add_loss(loss)
        return loss

    flow.train.CheckPoint().init()
    batches = data(batch)
    losses = []

    def step(i):
        z, images = batches[i % N_BATCHES]
        d = train_discriminator(z, images).get()
        g = train_generator(z).get()
        losses.append((float(d.numpy().mean()), float(g.numpy().mean())))

    return Variant(step, flow.sync_default_session, {"losses": losses})


# -- PyTorch eager ------------------------------------------------------------------------
def torch_variant(batch: int) -> Variant:
    import torch
    import torch.nn.functional as F
    from torch import nn

    class Generator(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(Z_DIM, 7 * 7 * 256, bias=False)
            self.bn1 = nn.BatchNorm1d(7 * 7 * 256)
            self.d1 = nn.ConvTranspose2d(256, 128, 5, 1, 2, bias=False)
            self.bn2 = nn.BatchNorm2d(128)
            self.d2 = nn.ConvTranspose2d(128, 64, 5, 2, 2, output_padding=1, bias=False)
            self.bn3 = nn.BatchNorm2d(64)
            self.d3 = nn.ConvTranspose2d(64, 1, 5, 2, 2, output_padding=1, bias=False)

        def forward(self, z):
            h = F.leaky_relu(self.bn1(self.fc(z)), 0.3).view(-1, 256, 7, 7)
            h = F.leaky_relu(self.bn2(self.d1(h)), 0.3)
            h = F.leaky_relu(self.bn3(self.d2(h)), 0.3)
            return torch.tanh(self.d3(h))

    class Discriminator(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2d(1, 64, 5, 2, 2)
            self.c2 = nn.Conv2d(64, 128, 5, 2, 2)
            self.fc = nn.Linear(6272, 1, bias=False)

        def forward(self, x):
            h = F.dropout(F.leaky_relu(self.c1(x), 0.3), 0.3, self.training)
            h = F.dropout(F.leaky_relu(self.c2(h), 0.3), 0.3, self.training)
            return self.fc(h.reshape(h.shape[0], -1))

    torch.manual_seed(0)
    gen, disc = Generator().train(), Discriminator().train()
    for p in [*gen.parameters(), *disc.parameters()]:
        if p.dim() > 1:
            nn.init.normal_(p, std=0.02)
    opt_g = torch.optim.Adam(gen.parameters(), lr=LR)
    opt_d = torch.optim.Adam(disc.parameters(), lr=LR)
    bce = F.binary_cross_entropy_with_logits
    batches = [(torch.from_numpy(z), torch.from_numpy(x)) for z, x in data(batch)]
    losses = []

    def step(i):
        z, images = batches[i % N_BATCHES]
        with torch.no_grad():  # the discriminator step does not train the generator
            fake_images = gen(z)
        fake, real = disc(fake_images), disc(images)
        d_loss = bce(fake, torch.zeros_like(fake)) + bce(real, torch.ones_like(real))
        opt_d.zero_grad(set_to_none=True)
        d_loss.backward()
        opt_d.step()
        for p in disc.parameters():  # gradients flow through D, which this step leaves
            p.requires_grad_(False)
        logits = disc(gen(z))
        g_loss = bce(logits, torch.ones_like(logits))
        opt_g.zero_grad(set_to_none=True)
        g_loss.backward()
        opt_g.step()
        for p in disc.parameters():
            p.requires_grad_(True)
        losses.append((d_loss.item(), g_loss.item()))

    return Variant(step, extra={"losses": losses})


NO_KERNELS = {"ENABLED": False}


def dcgan_section(quick: bool) -> Section:
    t0 = time.time()
    rounds = 3 if quick else 6
    variants = {
        "flowjob": {"engine": "flowjob"},
        "flowjob, oneDNN convolutions": {"engine": "flowjob", "conv_kernel": "onednn"},
        "flowjob, XLA convolutions": {"engine": "flowjob", "kernels": NO_KERNELS},
        "PyTorch eager": {"engine": "torch"},
    }
    specs = {k: dict(v, model="dcgan", batch=BATCH, warmup=2) for k, v in variants.items()}
    workers = H.start_all(specs, timeout=900)
    try:
        steps = H.calibrate(workers, 1.0)
        series = H.paired_rounds(workers, rounds, steps)
    finally:
        closed = H.close_all(workers)
    f = flops(BATCH)
    rows = [
        [k, *rate_cells(s), f"{1e3 / s.median:.0f}", f"{s.median * f / 1e9:.3g}",
         f"{closed[k].get('maxrss_mb', 0):.0f}"]
        for k, s in series.items()
    ]  # fmt: skip
    r_torch = H.ratio(series, "flowjob", "PyTorch eager")
    forced = H.ratio(series, "flowjob", "flowjob, oneDNN convolutions")
    xla = H.ratio(series, "flowjob", "flowjob, XLA convolutions")
    md = [
        f"OneFlow-Benchmark's DCGAN (`Generative/dcgan.py`'s layers), batch {BATCH}: one "
        "discriminator step and one generator step per iteration (two job calls, losses "
        "fetched), Adam; against the same model in PyTorch eager. "
        f"{rounds} rounds of alternating segments.\n",
        table(
            ["variant", "iterations/s", "range", "ms per iteration", "GFLOP/s", "max RSS MB"],
            rows,
        ),
        f"\nflowjob / PyTorch: {H.fmt_ratio(r_torch)}; flowjob / flowjob with every "
        f"convolution on oneDNN: {H.fmt_ratio(forced)}; flowjob / flowjob with XLA's "
        f"convolutions: {H.fmt_ratio(xla)}",
    ]
    goals = [goal("DCGAN iteration flowjob / PyTorch", r_torch[0], ">=", 1.0, "issue 47")]
    return Section("DCGAN, batch 100 (issue 47)", "\n".join(md), goals, time.time() - t0)
