"""Losses: cross-entropies (per example, no reduction), ``flow.losses.add_loss``, and
OneFlow's functional losses with ``reduction=``: ``flow.nn.MSELoss``, ``L1Loss``,
``BCELoss``, ``BCEWithLogitsLoss``, ``KLDivLoss``, ``MarginRankingLoss``,
``TripletMarginLoss``, and ``flow.smooth_l1_loss`` (elementwise).

The functional losses are built from flowjob ops as OneFlow builds them (ops named
``<name>_...``); ``"mean"`` and ``"sum"`` reduce over every element to shape ``(1,)``,
``"none"`` keeps the elementwise loss.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ..graph import Blob, apply_op, current_graph
from ._activations import log_sigmoid
from ._binary import multiply, subtract
from ._modes import Reduction
from ._reduce import reduce_mean, reduce_sum
from ._shape import squeeze
from ._unary import abs as _abs
from ._unary import log, negative, square
from ._util import broadcast_shape, check_name, fail, require_blob


def _sparse_labels(public: str, labels: Blob, logits: Blob, name: str | None) -> None:
    require_blob(public, labels, "labels", name)
    require_blob(public, logits, "logits", name)
    if labels.dtype.np_dtype.kind not in "iu":
        fail(public, f"labels must be integer class indices, got {labels.dtype.name}", name)
    if not logits.dtype.is_floating:
        fail(public, f"logits must be floating point, got {logits.dtype.name}", name)
    if logits.ndim < 1:
        fail(public, "logits need rank >= 1 (the last axis holds the classes)", name)
    expected = logits.shape[:-1]
    if labels.shape not in (expected, expected + (1,)):
        fail(
            public,
            f"labels of shape {labels.shape} do not match logits {logits.shape}: "
            f"expected {expected} (or {expected + (1,)})",
            name,
        )


def _picked(values, labels):
    labels = labels.reshape(values.shape[:-1]).astype(jnp.int32)
    return jnp.take_along_axis(values, labels[..., None], axis=-1)[..., 0]


def _lower_sparse_softmax_ce(labels, logits):
    # Same value as logsumexp(logits) - logits[label], but that form makes XLA:CPU run the
    # whole train step on one thread (measured in bench/NOTES.md); this one keeps both.
    return -_picked(jax.nn.log_softmax(logits, axis=-1), labels)


def sparse_softmax_cross_entropy_with_logits(
    labels: Blob, logits: Blob, name: str | None = None
) -> Blob:
    """``-log(softmax(logits)[label])`` per example; labels are int class indices of shape
    ``logits.shape[:-1]``. The result has that shape (no reduction)."""
    public = "flow.nn.sparse_softmax_cross_entropy_with_logits"
    name = check_name(public, name)
    _sparse_labels(public, labels, logits, name)
    return apply_op(
        "sparse_softmax_cross_entropy",
        _lower_sparse_softmax_ce,
        [labels, logits],
        name=name,
        prefix="SparseSoftmaxCrossEntropy",
    )


def distributed_sparse_softmax_cross_entropy_with_logits(
    labels: Blob, logits: Blob, name: str | None = None
) -> Blob:
    """OneFlow's model-parallel spelling (logits split over the classes); the values are
    ``sparse_softmax_cross_entropy_with_logits``'s, and labels may carry a last axis of 1."""
    public = "flow.nn.distributed_sparse_softmax_cross_entropy_with_logits"
    require_blob(public, labels, "labels", name)
    require_blob(public, logits, "logits", name)
    if labels.ndim == logits.ndim:
        if labels.shape[-1] != 1:
            fail(
                public,
                f"labels {labels.shape} of the logits' rank must end in 1 (logits {logits.shape})",
                name,
            )
        labels = squeeze(labels, axis=[-1])
    return sparse_softmax_cross_entropy_with_logits(labels, logits, name=name)


def _lower_combined_margin(x, label, *, m1, m2, m3):
    target = jnp.arange(x.shape[1])[None, :] == label[:, None].astype(jnp.int32)
    # the cosine is only taken where it is used, so other entries' gradients stay finite
    cos = jnp.where(target, x, jnp.zeros((), x.dtype))
    margin = jnp.cos(jnp.arccos(cos) * m1 + m2) - m3
    return jnp.where(target, margin.astype(x.dtype), x)


def combined_margin_loss(
    x: Blob, label: Blob, m1: float = 1, m2: float = 0, m3: float = 0, name: str | None = None
) -> Blob:
    """The combined (SphereFace/ArcFace/CosFace) margin on cosine logits ``x`` (batch,
    classes): each row's label entry ``cos t`` becomes ``cos(m1 * t + m2) - m3``, the rest stay
    (a label outside ``[0, classes)`` leaves its row unchanged)."""
    public = "flow.combined_margin_loss"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    require_blob(public, label, "label", name)
    if x.ndim != 2 or not x.dtype.is_floating:
        fail(public, f"x must be floating (batch, classes), got {x.shape} {x.dtype.name}", name)
    if label.shape != (x.shape[0],) or label.dtype.is_floating:
        fail(
            public,
            f"label must be integer of shape ({x.shape[0]},), got {label.shape} {label.dtype.name}",
            name,
        )
    return apply_op(
        "combined_margin_loss",
        _lower_combined_margin,
        [x, label],
        attrs={"m1": float(m1), "m2": float(m2), "m3": float(m3)},
        name=name,
        prefix="CombinedMarginLoss",
    )


def _lower_sparse_ce(labels, prediction):
    return -jnp.log(_picked(prediction, labels))


def sparse_cross_entropy(labels: Blob, prediction: Blob, name: str | None = None) -> Blob:
    """``-log(prediction[label])`` per example, for probabilities (not logits)."""
    public = "flow.nn.sparse_cross_entropy"
    name = check_name(public, name)
    _sparse_labels(public, labels, prediction, name)
    return apply_op(
        "sparse_cross_entropy",
        _lower_sparse_ce,
        [labels, prediction],
        name=name,
        prefix="SparseCrossEntropy",
    )


@jax.custom_vjp
def _lower_softmax_ce(labels, logits):
    return -jnp.sum(labels * jax.nn.log_softmax(logits, axis=-1), axis=-1)


def _softmax_ce_fwd(labels, logits):
    log_p = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.sum(labels * log_p, axis=-1), (labels, log_p)


def _softmax_ce_bwd(res, g):
    # OneFlow's (and TensorFlow's) kernel: d logits = g * (softmax - labels), whether or not
    # the labels sum to 1; labels get no gradient.
    labels, log_p = res
    return jnp.zeros_like(labels), g[..., None] * (jnp.exp(log_p) - labels)


_lower_softmax_ce.defvjp(_softmax_ce_fwd, _softmax_ce_bwd)


def softmax_cross_entropy_with_logits(labels: Blob, logits: Blob, name: str | None = None) -> Blob:
    """``-sum(labels * log_softmax(logits))`` over the last axis; labels are distributions of
    the logits' shape and dtype. The gradient is ``softmax(logits) - labels`` (OneFlow's
    kernel; labels get none)."""
    public = "flow.nn.softmax_cross_entropy_with_logits"
    name = check_name(public, name)
    require_blob(public, labels, "labels", name)
    require_blob(public, logits, "logits", name)
    if labels.shape != logits.shape or labels.dtype != logits.dtype:
        fail(
            public,
            f"labels ({labels.shape} {labels.dtype.name}) must have the shape and dtype "
            f"of logits ({logits.shape} {logits.dtype.name})",
            name,
        )
    if not logits.dtype.is_floating or logits.ndim < 1:
        fail(
            public,
            f"logits must be floating point with rank >= 1, got {logits.shape} {logits.dtype.name}",
            name,
        )
    return apply_op(
        "softmax_cross_entropy",
        _lower_softmax_ce,
        [labels, logits],
        name=name,
        prefix="SoftmaxCrossEntropy",
    )


def _lower_sigmoid_ce(labels, logits):
    # max(x, 0) - x z + log(1 + exp(-|x|)): stable for large |x|
    labels = labels.astype(logits.dtype)
    return jnp.maximum(logits, 0) - logits * labels + jnp.log1p(jnp.exp(-jnp.abs(logits)))


def sigmoid_cross_entropy_with_logits(labels: Blob, logits: Blob, name: str | None = None) -> Blob:
    """Elementwise logistic loss ``-z log(sigmoid(x)) - (1 - z) log(1 - sigmoid(x))``."""
    public = "flow.nn.sigmoid_cross_entropy_with_logits"
    name = check_name(public, name)
    require_blob(public, labels, "labels", name)
    require_blob(public, logits, "logits", name)
    if labels.shape != logits.shape:
        fail(
            public,
            f"labels {labels.shape} and logits {logits.shape} must have the same shape",
            name,
        )
    if not logits.dtype.is_floating:
        fail(public, f"logits must be floating point, got {logits.dtype.name}", name)
    return apply_op(
        "sigmoid_cross_entropy",
        _lower_sigmoid_ce,
        [labels, logits],
        name=name,
        prefix="SigmoidCrossEntropy",
        elementwise=True,
    )


def add_loss(loss: Blob) -> None:
    """Marks ``loss`` as a loss of the current train job (legacy API; ``minimize`` does it)."""
    current_graph().add_loss(loss)


def _check(
    public: str,
    input: Blob,
    target: Blob,
    reduction: str,  # noqa: A002
    name: str | None,
    default: str,
) -> tuple[str, Reduction]:
    """The loss's name (``default`` numbered when unnamed) and its ``reduction`` as an enum."""
    check_name(public, name)
    require_blob(public, input, "input", name)
    require_blob(public, target, "target", name)
    if input.shape != target.shape:
        fail(
            public, f"input {input.shape} and target {target.shape} must have the same shape", name
        )
    if not input.dtype.is_floating:
        fail(public, f"input must be floating point, got {input.dtype.name}", name)
    mode = Reduction.lookup(reduction)
    if mode is None:
        fail(
            public,
            f"reduction must be one of {tuple(map(str, Reduction))}, got {reduction!r}",
            name,
        )
    return (name if name is not None else current_graph().unique_name(default)), mode


def _reduce(loss: Blob, reduction: Reduction, name: str) -> Blob:
    if reduction == Reduction.MEAN:
        return reduce_mean(loss, name=name + "_reduce_mean")
    if reduction == Reduction.SUM:
        return reduce_sum(loss, name=name + "_reduce_sum")
    return loss


def _weighted(
    public: str, loss: Blob, weight: Blob | None, what: str, like: Blob, name: str
) -> Blob:
    if weight is None:
        return loss
    require_blob(public, weight, what, name)
    if weight.shape != like.shape:
        fail(public, f"{what} {weight.shape} must have the input's shape {like.shape}", name)
    return multiply(weight, loss, name=f"{name}_{what}_mul")


def mse_loss(
    input: Blob,
    target: Blob,
    reduction: str = "mean",  # noqa: A002
    name: str | None = None,
) -> Blob:
    """``(target - input) ** 2``, reduced by ``reduction``."""
    name, reduction = _check("flow.nn.MSELoss", input, target, reduction, name, "MSELoss")
    diff = subtract(target, input, name=name + "_sub")
    return _reduce(square(diff, name=name + "_mean_squared"), reduction, name)


def l1_loss(
    input: Blob,
    target: Blob,
    reduction: str = "mean",  # noqa: A002
    name: str | None = None,
) -> Blob:
    """``|target - input|``, reduced by ``reduction``."""
    name, reduction = _check("flow.nn.L1Loss", input, target, reduction, name, "L1Loss")
    diff = subtract(target, input, name=name + "_sub")
    return _reduce(_abs(diff, name=name + "_abs"), reduction, name)


def bce_loss(
    input: Blob,
    target: Blob,
    weight: Blob | None = None,  # noqa: A002
    reduction: str = "mean",
    name: str | None = None,
) -> Blob:
    """``-weight * (target log(input) + (1 - target) log(1 - input))`` for probabilities
    ``input`` in (0, 1), reduced by ``reduction``."""
    public = "flow.nn.BCELoss"
    name, reduction = _check(public, input, target, reduction, name, "BCELoss")
    pos = multiply(target, log(input, name=name + "_log"), name=name + "_pos")
    one_minus_t = subtract(1.0, target, name=name + "_one_minus_target")
    one_minus_x = subtract(1.0, input, name=name + "_one_minus_input")
    neg = multiply(one_minus_t, log(one_minus_x, name=name + "_log_neg"), name=name + "_neg")
    loss = negative(pos + neg, name=name + "_negative")
    return _reduce(_weighted(public, loss, weight, "weight", input, name), reduction, name)


def bce_with_logits_loss(
    input: Blob,
    target: Blob,
    weight: Blob | None = None,  # noqa: A002
    pos_weight: Blob | None = None,
    reduction: str = "mean",
    name: str | None = None,
) -> Blob:
    """BCELoss on ``sigmoid(input)``, computed stably from the logits; ``pos_weight`` (shape
    ``(C,)`` for inputs ``(..., C)``) weighs the positive term."""
    public = "flow.nn.BCEWithLogitsLoss"
    name, reduction = _check(public, input, target, reduction, name, "BCEWithLogitsLoss")
    log_p = log_sigmoid(input, name=name + "_log_sigmoid")
    log_not_p = log_sigmoid(
        negative(input, name=name + "_neg_input"), name=name + "_log_sigmoid_neg"
    )
    pos = multiply(target, log_p, name=name + "_pos")
    if pos_weight is not None:
        require_blob(public, pos_weight, "pos_weight", name)
        if pos_weight.shape not in ((input.shape[-1],), input.shape):
            fail(
                public,
                f"pos_weight {pos_weight.shape} must have shape {(input.shape[-1],)}"
                f" or {input.shape}",
                name,
            )
        pos = multiply(pos, pos_weight, name=name + "_pos_weight_mul")
    neg = multiply(
        subtract(1.0, target, name=name + "_one_minus_target"), log_not_p, name=name + "_neg"
    )
    loss = negative(pos + neg, name=name + "_negative")
    return _reduce(_weighted(public, loss, weight, "weight", input, name), reduction, name)


def _lower_kl_div(input, target, *, log_target):  # noqa: A002
    if log_target:
        return jnp.exp(target) * (target - input)
    positive = target > 0
    safe = jnp.where(positive, target, jnp.ones((), target.dtype))
    return jnp.where(positive, target * (jnp.log(safe) - input), jnp.zeros((), input.dtype))


def kl_div_loss(
    input: Blob,
    target: Blob,
    log_target: bool = False,  # noqa: A002
    reduction: str = "mean",
    name: str | None = None,
) -> Blob:
    """``target * (log(target) - input)`` for log-probabilities ``input`` (0 where
    ``target`` is 0; no NaN there), or ``exp(target) * (target - input)`` with
    ``log_target``; reduced by ``reduction``."""
    name, reduction = _check("flow.nn.KLDivLoss", input, target, reduction, name, "KLDivLoss")
    loss = apply_op(
        "kl_div_loss",
        _lower_kl_div,
        [input, target],
        attrs={"log_target": bool(log_target)},
        name=name + "_elementwise",
    )
    return _reduce(loss, reduction, name)


def _lower_margin_ranking(input1, input2, target, *, margin):
    return jnp.maximum(margin - target * (input1 - input2), 0)


def margin_ranking_loss(
    input1: Blob,
    input2: Blob,
    target: Blob,
    margin: float = 0.0,
    reduction: str = "mean",
    name: str | None = None,
) -> Blob:
    """``max(0, margin - target * (input1 - input2))``, reduced by ``reduction``."""
    public = "flow.nn.MarginRankingLoss"
    name, reduction = _check(public, input1, input2, reduction, name, "MarginRankingLoss")
    require_blob(public, target, "target", name)
    broadcast_shape(public, [input1.shape, target.shape], name)
    loss = apply_op(
        "margin_ranking_loss",
        _lower_margin_ranking,
        [input1, input2, target],
        attrs={"margin": float(margin)},
        name=name + "_elementwise",
    )
    return _reduce(loss, reduction, name)


def _p_distance(a, b, p, eps):
    diff = jnp.abs(a - b + eps)
    return jnp.sum(diff**p, axis=1) ** (1.0 / p)


def _lower_triplet(anchor, positive, negative, *, margin, p, eps, swap):
    d_pos = _p_distance(anchor, positive, p, eps)
    d_neg = _p_distance(anchor, negative, p, eps)
    if swap:
        d_neg = jnp.minimum(d_neg, _p_distance(positive, negative, p, eps))
    return jnp.maximum(margin + d_pos - d_neg, 0)


def triplet_margin_loss(
    anchor: Blob,
    positive: Blob,
    negative: Blob,
    margin: float = 1.0,
    p: float = 2.0,
    eps: float = 1e-6,
    swap: bool = False,
    reduction: str = "mean",
    name: str | None = None,
) -> Blob:
    """``max(0, margin + |a - p + eps|_p - |a - n + eps|_p)`` per row (norms over axis 1);
    ``swap`` uses the smaller of the anchor's and the positive's distance to the negative
    (OneFlow v0.4 rejected ``swap=True``)."""
    public = "flow.nn.TripletMarginLoss"
    name, reduction = _check(public, anchor, positive, reduction, name, "TripletMarginLoss")
    require_blob(public, negative, "negative", name)
    if negative.shape != anchor.shape or anchor.ndim < 2:
        fail(
            public,
            f"anchor, positive and negative must share one shape of rank >= 2, got "
            f"{anchor.shape} and {negative.shape}",
            name,
        )
    loss = apply_op(
        "triplet_margin_loss",
        _lower_triplet,
        [anchor, positive, negative],
        attrs={"margin": float(margin), "p": float(p), "eps": float(eps), "swap": bool(swap)},
        name=name + "_elementwise",
    )
    return _reduce(loss, reduction, name)


def _lower_smooth_l1(prediction, label, *, beta):
    x = jnp.abs(prediction - label)
    if beta == 0:
        return x
    return jnp.where(x < beta, 0.5 * x * x / beta, x - 0.5 * beta)


def smooth_l1_loss(
    prediction: Blob, label: Blob, beta: float = 1.0, name: str | None = None
) -> Blob:
    """Elementwise Huber-style loss: ``0.5 x**2 / beta`` for ``|x| < beta``, else
    ``|x| - 0.5 beta``, with ``x = prediction - label`` (no reduction)."""
    public = "flow.smooth_l1_loss"
    check_name(public, name)
    require_blob(public, prediction, "prediction", name)
    require_blob(public, label, "label", name)
    if prediction.shape != label.shape or not prediction.dtype.is_floating:
        fail(
            public,
            f"prediction {prediction.shape} {prediction.dtype.name} and label "
            f"{label.shape} must have one floating point shape",
            name,
        )
    if beta < 0:
        fail(public, f"beta must be >= 0, got {beta}", name)
    return apply_op(
        "smooth_l1_loss",
        _lower_smooth_l1,
        [prediction, label],
        attrs={"beta": float(beta)},
        name=name,
        prefix="SmoothL1Loss",
    )
