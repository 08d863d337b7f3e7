"""``flow.ctc_loss``: Connectionist Temporal Classification (Graves et al., 2006).

The loss of one sequence is ``-log`` of the summed probability of every alignment of its
target (blanks between and around the labels, repeats) to its frames: the forward recursion
over the extended target ``blank, l1, blank, l2, ..., blank``, one ``lax.scan`` over time.
Log-zero is a large negative number rather than ``-inf`` so gradients stay finite; a target
that cannot be aligned (too few frames) gives an infinite loss, or 0 with ``zero_infinity``.
The gradient follows OneFlow's (and PyTorch's) convention: it is taken with respect to the
logits behind ``log_probs = log_softmax(logits)``. Targets that contain the blank label are
outside CTC's definition; there the gradient is OneFlow v0.4's kernel's (``_ctc_backward``).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from jax import lax

from ..graph import Blob, apply_op
from ._modes import Reduction
from ._util import check_name, fail, require_blob

_LOG_ZERO = -1e30
_IMPOSSIBLE = 1e29  # a loss above this means no alignment had any probability


def _one_sequence(log_probs, target, frames, labels, *, blank):
    """-log p(target[:labels] | log_probs[:frames]) for log_probs (T, K), target (S,), and
    the log-probability of the alignments that end on the final blank."""
    steps = log_probs.shape[0]
    ext = jnp.full(2 * target.shape[0] + 1, blank, target.dtype).at[1::2].set(target)
    width = ext.shape[0]
    position = jnp.arange(width)
    # a label may skip the blank before it unless it repeats the previous label
    skip = (position % 2 == 1) & (position >= 2) & (ext != jnp.roll(ext, 2))
    alpha = jnp.where(position < 2, log_probs[0, ext], _LOG_ZERO)

    def step(alpha, t):
        before = jnp.concatenate([jnp.full(1, _LOG_ZERO, alpha.dtype), alpha[:-1]])
        two_before = jnp.concatenate([jnp.full(2, _LOG_ZERO, alpha.dtype), alpha[:-2]])
        two_before = jnp.where(skip, two_before, _LOG_ZERO)
        moved = jnp.logaddexp(jnp.logaddexp(alpha, before), two_before) + log_probs[t, ext]
        return jnp.where(t < frames, jnp.maximum(moved, _LOG_ZERO), alpha), None

    alpha, _ = lax.scan(step, alpha, jnp.arange(1, steps))
    end = 2 * labels
    last = jnp.logaddexp(alpha[end], jnp.where(end >= 1, alpha[jnp.maximum(end - 1, 0)], _LOG_ZERO))
    return -last, lax.stop_gradient(alpha[end])


def _losses(log_probs, targets, input_lengths, target_lengths, blank):
    per_batch = jax.vmap(
        lambda lp, tg, n, m: _one_sequence(lp, tg, n, m, blank=blank), in_axes=(1, 0, 0, 0)
    )
    return per_batch(log_probs, targets, input_lengths, target_lengths)


@functools.partial(jax.custom_vjp, nondiff_argnums=(4, 5))
def _ctc(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    return _losses(log_probs, targets, input_lengths, target_lengths, blank)[0]


def _ctc_forward(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    loss, vjp, end_on_blank = jax.vjp(
        lambda lp: _losses(lp, targets, input_lengths, target_lengths, blank),
        log_probs,
        has_aux=True,
    )
    return loss, (vjp, log_probs, targets, input_lengths, target_lengths, loss, end_on_blank)


def _ctc_backward(blank, zero_infinity, saved, g):
    # OneFlow (as PyTorch) returns the gradient with respect to the logits the log_probs
    # were log-softmaxed from: the exact gradient plus exp(log_probs) times each example's
    # upstream gradient, over its real frames. An example with no alignment has an infinite
    # loss: zero_infinity gives it no gradient, else NaN over its real frames (the kernel's
    # exp(alpha + beta + inf), as OneFlow's).
    vjp, log_probs, targets, input_lengths, target_lengths, loss, end_on_blank = saved
    impossible = loss > _IMPOSSIBLE
    g = jnp.where(impossible, 0.0, g)
    (exact,) = vjp(g)
    frames = jnp.arange(log_probs.shape[0])[:, None] < input_lengths[None, :]
    grad = exact + jnp.exp(log_probs) * jnp.where(frames, g[None, :], 0.0)[..., None]
    # OneFlow v0.4's kernels (CPU and GPU) set the last frame's entries of the final blank and
    # of the last label one after the other: when that label is the blank itself, the second
    # overwrites the first, so the alignments ending on the final blank drop out of that
    # entry's posterior. Only targets holding the blank label (invalid input) reach this.
    batch = jnp.arange(targets.shape[0])
    last_label = targets[batch, jnp.maximum(target_lengths - 1, 0)]
    quirk = (target_lengths > 0) & (input_lengths > 0) & (last_label == blank) & ~impossible
    dropped = jnp.where(quirk, g * jnp.exp(jnp.where(quirk, end_on_blank + loss, 0.0)), 0.0)
    grad = grad.at[jnp.maximum(input_lengths - 1, 0), batch, blank].add(dropped)
    if not zero_infinity:
        grad = jnp.where(impossible[None, :, None] & frames[..., None], jnp.nan, grad)
    return grad.astype(log_probs.dtype), None, None, None


_ctc.defvjp(_ctc_forward, _ctc_backward)


def _lower_ctc(
    log_probs, targets, input_lengths, target_lengths, *, blank, zero_infinity, reduction
):
    loss = _ctc(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity)
    impossible = loss > _IMPOSSIBLE
    loss = jnp.where(impossible, 0.0 if zero_infinity else jnp.inf, loss).astype(log_probs.dtype)
    if reduction == Reduction.MEAN:
        return jnp.mean(loss / jnp.maximum(target_lengths, 1).astype(loss.dtype))
    if reduction == Reduction.SUM:
        return jnp.sum(loss)
    return loss


def ctc_loss(
    log_probs: Blob,
    targets: Blob,
    input_lengths: Blob,
    target_lengths: Blob,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
    name: str | None = None,
) -> Blob:
    """CTC loss of ``log_probs`` (frames, batch, classes; log-softmax outputs) against
    ``targets`` (batch, max target length; class indices other than ``blank``), using the
    first ``input_lengths[b]`` frames and ``target_lengths[b]`` labels of each example.
    ``reduction``: ``"none"`` (per example), ``"sum"``, or ``"mean"`` (each loss divided by
    its target length, then the batch mean)."""
    public = "flow.ctc_loss"
    name = check_name(public, name)
    for arg, blob in (
        ("log_probs", log_probs),
        ("targets", targets),
        ("input_lengths", input_lengths),
        ("target_lengths", target_lengths),
    ):
        require_blob(public, blob, arg, name)
    mode = Reduction.lookup(reduction)
    if mode is None:
        fail(public, f"reduction must be 'none', 'mean' or 'sum', got {reduction!r}", name)
    if log_probs.ndim != 3 or not log_probs.dtype.is_floating:
        fail(
            public,
            f"log_probs must be floating (frames, batch, classes), got "
            f"{log_probs.shape} {log_probs.dtype.name}",
            name,
        )
    batch, classes = log_probs.shape[1], log_probs.shape[2]
    if targets.ndim != 2 or targets.shape[0] != batch or targets.dtype.is_floating:
        fail(
            public,
            f"targets must be integer (batch={batch}, max target length), got "
            f"{targets.shape} {targets.dtype.name}",
            name,
        )
    for arg, blob in (("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        if blob.shape != (batch,) or blob.dtype.is_floating:
            fail(
                public,
                f"{arg} must be integer of shape ({batch},), got {blob.shape} {blob.dtype.name}",
                name,
            )
    if isinstance(blank, bool) or not isinstance(blank, int) or not 0 <= blank < classes:
        fail(public, f"blank must be a class index in [0, {classes}), got {blank!r}", name)
    return apply_op(
        "ctc_loss",
        _lower_ctc,
        [log_probs, targets, input_lengths, target_lengths],
        attrs={"blank": blank, "zero_infinity": bool(zero_infinity), "reduction": mode},
        name=name,
        prefix="CTCLoss",
    )
