"""A GAN trained by alternating two train jobs that share variables, each training only its
own half (``trainable=`` per job).

This project's own program (not a copy): modelled on the API surface of OneFlow-Benchmark's
``Generative/dcgan.py`` (generator and discriminator built from ``flow.layers.dense`` with
``trainable=`` and ``flow.nn.leaky_relu``, ``sigmoid_cross_entropy_with_logits`` against
``ones_like``/``zeros_like`` targets, Adam for both jobs, real data and noise fed as
``tp.Numpy.Placeholder``s, the discriminator step then the generator step), on 2-D points
instead of images so that it trains in seconds. Every ``--report_every`` steps it prints
``step S dloss D gloss G mean M0 M1 std S0 S1`` (mean and std of generated points).
"""

import argparse

import numpy as np
import oneflow as flow
import oneflow.typing as tp

parser = argparse.ArgumentParser(description="tiny GAN")
parser.add_argument("--batch_size", type=int, default=64)
parser.add_argument("--z_dim", type=int, default=4)
parser.add_argument("--hidden", type=int, default=32)
parser.add_argument("--steps", type=int, default=300)
parser.add_argument("--report_every", type=int, default=50)
parser.add_argument("--learning_rate", type=float, default=2e-3)
parser.add_argument("--data_mean", type=float, nargs=2, default=[2.0, -1.0])
parser.add_argument("--data_std", type=float, nargs=2, default=[0.5, 0.3])
args = parser.parse_args()

BATCH, Z = args.batch_size, args.z_dim


def dense(x, units, name, trainable, activation=None):
    # flow.layers.dense starts from zero weights: a GAN needs random ones to break symmetry
    return flow.layers.dense(
        x,
        units,
        activation=activation,
        trainable=trainable,
        name=name,
        kernel_initializer=flow.glorot_uniform_initializer(),
    )


def generator(z, trainable):
    with flow.scope.namespace("generator"):
        h = dense(z, args.hidden, "g_fc1", trainable, flow.nn.leaky_relu)
        return dense(h, 2, "g_out", trainable)


def discriminator(points, trainable):
    with flow.scope.namespace("discriminator"):
        h = flow.nn.leaky_relu(dense(points, args.hidden, "d_fc1", trainable), alpha=0.2)
        return dense(h, 1, "d_out", trainable)


def adam(loss):
    schedule = flow.optimizer.PiecewiseConstantScheduler([], [args.learning_rate])
    flow.optimizer.Adam(schedule, beta1=0.5).minimize(loss)


def bce(logits, target_like):
    return flow.math.reduce_mean(flow.nn.sigmoid_cross_entropy_with_logits(target_like, logits))


@flow.global_function(type="train")
def train_discriminator(
    z: tp.Numpy.Placeholder((BATCH, Z)), real: tp.Numpy.Placeholder((BATCH, 2))
) -> tp.Numpy:
    fake = generator(z, trainable=False)
    # one discriminator call on both halves (a second call would redefine its variables)
    logits = discriminator(flow.concat([real, fake], axis=0), trainable=True)
    real_logits = flow.slice(logits, [0, 0], [BATCH, 1])
    fake_logits = flow.slice(logits, [BATCH, 0], [BATCH, 1])
    loss = bce(real_logits, flow.ones_like(real_logits)) + bce(
        fake_logits, flow.zeros_like(fake_logits)
    )
    adam(loss)
    return loss


@flow.global_function(type="train")
def train_generator(z: tp.Numpy.Placeholder((BATCH, Z))) -> tp.Numpy:
    fake_logits = discriminator(generator(z, trainable=True), trainable=False)
    loss = bce(fake_logits, flow.ones_like(fake_logits))
    adam(loss)
    return loss


@flow.global_function(type="predict")
def generate(z: tp.Numpy.Placeholder((BATCH, Z))) -> tp.Numpy:
    return generator(z, trainable=False)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    mean, std = np.array(args.data_mean), np.array(args.data_std)

    def noise():
        return rng.standard_normal((BATCH, Z)).astype(np.float32)

    def report(step, dloss, gloss):
        points = np.concatenate([generate(noise()) for _ in range(4)])
        m, s = points.mean(axis=0), points.std(axis=0)
        print(
            f"step {step} dloss {dloss:.6f} gloss {gloss:.6f} "
            f"mean {m[0]:.6f} {m[1]:.6f} std {s[0]:.6f} {s[1]:.6f}"
        )

    report(0, float("nan"), float("nan"))
    for step in range(1, args.steps + 1):
        real = (mean + std * rng.standard_normal((BATCH, 2))).astype(np.float32)
        dloss = float(train_discriminator(noise(), real).mean())
        gloss = float(train_generator(noise()).mean())
        if step % args.report_every == 0:
            report(step, dloss, gloss)
