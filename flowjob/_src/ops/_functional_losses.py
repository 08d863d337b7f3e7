"""OneFlow's functional losses with ``reduction=``: ``flow.nn.MSELoss``, ``L1Loss``,
``BCELoss``, ``BCEWithLogitsLoss``, ``KLDivLoss``, ``MarginRankingLoss``,
``TripletMarginLoss``, and ``flow.smooth_l1_loss`` (elementwise).

The functional losses are built from flowjob ops as OneFlow builds them (ops named
``<name>_...``); ``"mean"`` and ``"sum"`` reduce over every element to shape ``(1,)``,
``"none"`` keeps the elementwise loss.
"""

from __future__ import annotations

import jax.numpy as jnp

from ..graph import Blob, apply_op, current_graph
from ._activations import log_sigmoid
from ._binary import multiply, subtract
from ._modes import Reduction
from ._reduce import reduce_mean, reduce_sum
from ._unary import abs as _abs
from ._unary import log, negative, square
from ._util import broadcast_shape, check_name, fail, require_blob


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
