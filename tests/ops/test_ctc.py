"""``flowjob/_src/ops/_ctc.py``: CTC loss against a brute-force sum over every alignment (NumPy
forward, jax.grad of the same enumeration for the gradient). OneFlow's gradient (PyTorch's
too) is the one with respect to the logits behind ``log_probs = log_softmax(logits)``; as
``log_softmax`` leaves log-probabilities unchanged, that is the gradient of
``brute_force(log_softmax(z))`` at ``z = log_probs``."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from ops_helpers import value_and_grads

import flowjob as flow


def _collapse(path, blank):
    out = [k for i, k in enumerate(path) if i == 0 or k != path[i - 1]]
    return tuple(k for k in out if k != blank)


def brute_force(log_probs, targets, input_lengths, target_lengths, blank, xp=np):
    """Per-example -log(sum over alignments), enumerating every path of each example."""
    losses = []
    for b in range(log_probs.shape[1]):
        frames, labels = int(input_lengths[b]), int(target_lengths[b])
        target = tuple(int(v) for v in targets[b, :labels])
        classes = log_probs.shape[2]
        scores = [
            sum(log_probs[t, b, k] for t, k in enumerate(path))
            for path in itertools.product(range(classes), repeat=frames)
            if _collapse(path, blank) == target
        ]
        losses.append(-jax.nn.logsumexp(xp.stack(scores)) if scores else xp.inf)
    return xp.stack([xp.asarray(v, dtype=log_probs.dtype) for v in losses])


def _log_softmax(x):
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


INPUT_LENGTHS = np.array([5, 5, 3], np.int32)
TARGET_LENGTHS = np.array([2, 2, 1], np.int32)
# labels 1..3 with blank 0, or 0..2 with blank 3; the middle example repeats a label
TARGETS = {
    0: np.array([[1, 2, 0], [2, 2, 1], [1, 0, 0]], np.int32),
    3: np.array([[0, 1, 3], [1, 1, 0], [2, 3, 3]], np.int32),
}


@pytest.mark.parametrize("reduction, blank", [("none", 0), ("mean", 0), ("sum", 3)])
def test_ctc_loss_matches_the_alignment_sum_and_its_gradient(reduction, blank):
    log_probs = _log_softmax(np.random.default_rng(5).normal(size=(5, 3, 4)))
    args = (TARGETS[blank], INPUT_LENGTHS, TARGET_LENGTHS)

    def reduce(loss):
        if reduction == "sum":
            return loss.sum()
        if reduction == "mean":
            return (loss / np.maximum(TARGET_LENGTHS, 1)).mean()
        return loss

    value, grads, cot = value_and_grads(
        lambda lp, tg, il, tl: flow.ctc_loss(lp, tg, il, tl, blank=blank, reduction=reduction),
        log_probs,
        *args,
    )
    want = reduce(brute_force(log_probs, *args, blank, xp=np))
    np.testing.assert_allclose(value, want, rtol=1e-10)
    want_grad = jax.grad(
        lambda z: (reduce(brute_force(jax.nn.log_softmax(z), *args, blank, xp=jnp)) * cot).sum()
    )(log_probs)
    np.testing.assert_allclose(grads[0], want_grad, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("zero_infinity, want", [(False, np.inf), (True, 0.0)])
def test_ctc_loss_of_a_target_longer_than_its_frames(zero_infinity, want):
    log_probs = _log_softmax(np.random.default_rng(1).normal(size=(2, 1, 3)))
    targets = np.array([[1, 1]], np.int32)  # a repeat needs a blank between: 3 frames
    value, (grad, *_), _ = value_and_grads(
        lambda lp, tg, il, tl: flow.ctc_loss(
            lp, tg, il, tl, reduction="none", zero_infinity=zero_infinity
        ),
        log_probs,
        targets,
        np.array([2], np.int32),
        np.array([2], np.int32),
    )
    assert value.tolist() == [want]
    if zero_infinity:
        np.testing.assert_array_equal(grad, np.zeros_like(log_probs))
    else:  # OneFlow's kernel (and PyTorch's): exp(alpha + beta + inf) is NaN
        assert np.isnan(grad).all()


def lattice_posteriors(log_probs, ext, frames):
    """-log p and per-frame class posteriors by enumerating every path through the extended
    target's states (start at state 0 or 1, stay / step / skip a differing state, end on one
    of the last two), whatever the labels are; also the posterior of the blank class at the
    last frame counted over the paths that end on the last label only."""
    width = len(ext)
    paths = [
        p
        for p in itertools.product(range(width), repeat=frames)
        if p[0] < 2
        and p[-1] >= width - 2
        and all(b == a or b == a + 1 or (b == a + 2 and ext[b] != ext[a]) for a, b in zip(p, p[1:]))
    ]
    scores = np.array([sum(log_probs[t, ext[st]] for t, st in enumerate(p)) for p in paths])
    total = np.logaddexp.reduce(scores)
    weight = np.exp(scores - total)
    post = np.zeros((frames, log_probs.shape[1]))
    for p, w in zip(paths, weight):
        for t, st in enumerate(p):
            post[t, ext[st]] += w
    ending_on_label = sum(w for p, w in zip(paths, weight) if p[-1] == width - 2)
    return -total, post, ending_on_label


def test_targets_holding_the_blank_follow_oneflows_kernel():
    """A target that holds the blank label is invalid CTC input, but OneFlow's kernel gives a
    defined result (OneFlow's test_ctc_loss.py checks it with blank=4): the loss is the sum
    over the extended target's paths, and the gradient is softmax minus the path posteriors,
    except that at the last frame, when the last label is the blank, the blank's posterior
    counts only the paths ending on that label (the kernel overwrites the entry of the paths
    ending on the final blank)."""
    blank = 2
    log_probs = _log_softmax(np.random.default_rng(3).normal(size=(5, 3, 3)))
    targets = np.array([[1, 2], [2, 1], [0, 2]], np.int32)  # blank last, first, last
    input_lengths = np.array([5, 4, 4], np.int32)
    target_lengths = np.array([2, 2, 2], np.int32)
    value, (grad, *_), cot = value_and_grads(
        lambda lp, tg, il, tl: flow.ctc_loss(lp, tg, il, tl, blank=blank, reduction="none"),
        log_probs,
        targets,
        input_lengths,
        target_lengths,
    )
    want_grad = np.zeros_like(log_probs)
    for b in range(3):
        frames = int(input_lengths[b])
        ext = [blank, int(targets[b, 0]), blank, int(targets[b, 1]), blank]
        nll, post, ending_on_label = lattice_posteriors(log_probs[:frames, b], ext, frames)
        np.testing.assert_allclose(value[b], nll, rtol=1e-10)
        if ext[-2] == blank:
            post[frames - 1, blank] = ending_on_label
        want_grad[:frames, b] = cot[b] * (np.exp(log_probs[:frames, b]) - post)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-8, atol=1e-12)


def test_ctc_loss_rejects_bad_arguments():
    with pytest.raises(flow.OpError, match="reduction must be"):
        value_and_grads(
            lambda lp, tg, il, tl: flow.ctc_loss(lp, tg, il, tl, reduction="avg"),
            np.zeros((2, 1, 3)),
            np.zeros((1, 1), np.int32),
            np.ones(1, np.int32),
            np.ones(1, np.int32),
        )
