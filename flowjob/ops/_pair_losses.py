"""OneFlow v0.4's ``flow.nn`` losses on pairs and triplets of blobs: ``KLDivLoss``,
``MarginRankingLoss``, ``TripletMarginLoss`` (formulas of ``nn_ops.py@v0.4.0``).

``reduction="mean"``/``"sum"`` give shape ``(1,)``, as OneFlow's full reductions do.
"""

from __future__ import annotations

import jax.numpy as jnp

from ..graph import Blob, apply_op
from ._util import check_name, fail, require_blob

_REDUCTIONS = ("none", "mean", "sum")


def _reduce(loss, reduction):
    if reduction == "none":
        return loss
    out = jnp.mean(loss) if reduction == "mean" else jnp.sum(loss)
    return out.reshape((1,))


def _check(public: str, name: str | None, reduction: str, blobs: dict[str, Blob],
           same_shape: bool = True) -> None:
    check_name(public, name)
    for what, blob in blobs.items():
        require_blob(public, blob, what, name)
    if reduction not in _REDUCTIONS:
        fail(public, f"reduction must be one of {_REDUCTIONS}, got {reduction!r}", name)
    shapes = {what: b.shape for what, b in blobs.items()}
    if same_shape and len(set(shapes.values())) > 1:
        fail(public, f"inputs must have one shape, got {shapes}", name)


def _lower_kl_div(x, target, *, reduction, log_target):
    if log_target:
        loss = jnp.exp(target) * (target - x)
    else:
        # OneFlow zeroes the terms where target <= 0 (where log(target) is not finite).
        positive = target > 0
        safe = jnp.where(positive, target, 1.0)
        loss = jnp.where(positive, target * (jnp.log(safe) - x), 0.0)
    return _reduce(loss, reduction)


def KLDivLoss(input: Blob, target: Blob, log_target: bool = False,  # noqa: A002, N802
              reduction: str = "mean", name: str | None = None) -> Blob:
    """Kullback-Leibler divergence of ``target`` from ``input`` (log-probabilities)."""
    _check("flow.nn.KLDivLoss", name, reduction, {"input": input, "target": target},
           same_shape=False)
    return apply_op("kl_div_loss", _lower_kl_div, [input, target],
                    attrs={"reduction": reduction, "log_target": bool(log_target)},
                    name=name, prefix="KLDivLoss")


def _lower_margin_ranking(x1, x2, target, *, margin, reduction):
    return _reduce(jnp.maximum(margin - target * (x1 - x2), 0.0), reduction)


def MarginRankingLoss(input1: Blob, input2: Blob, target: Blob,  # noqa: N802
                      margin: float = 0.0, reduction: str = "mean",
                      name: str | None = None) -> Blob:
    """``max(0, margin - target * (input1 - input2))``; ``target`` is 1 or -1."""
    public = "flow.nn.MarginRankingLoss"
    _check(public, name, reduction, {"input1": input1, "input2": input2})
    require_blob(public, target, "target", name)
    return apply_op("margin_ranking_loss", _lower_margin_ranking, [input1, input2, target],
                    attrs={"margin": float(margin), "reduction": reduction},
                    name=name, prefix="MarginRankingLoss")


def _p_norm(x, p):
    return jnp.sum(jnp.abs(x) ** p, axis=1) ** (1.0 / p)


def _lower_triplet(anchor, positive, negative, *, margin, p, eps, reduction):
    d_pos = _p_norm(anchor - positive + eps, p)
    d_neg = _p_norm(anchor - negative + eps, p)
    return _reduce(jnp.maximum(margin + d_pos - d_neg, 0.0), reduction)


def TripletMarginLoss(anchor: Blob, positive: Blob, negative: Blob,  # noqa: N802
                      margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                      swap: bool = False, reduction: str = "mean",
                      name: str | None = None) -> Blob:
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))`` with ``d`` the p-norm
    distance over axis 1 (each difference shifted by ``eps``). ``swap=True`` is refused, as in
    OneFlow v0.4."""
    public = "flow.nn.TripletMarginLoss"
    _check(public, name, reduction,
           {"anchor": anchor, "positive": positive, "negative": negative})
    if swap:
        fail(public, "swap=True is not supported (OneFlow v0.4 refuses it too)", name)
    if anchor.ndim < 2:
        fail(public, f"inputs need an axis 1 to measure distances along, got shape "
                     f"{anchor.shape}", name)
    return apply_op("triplet_margin_loss", _lower_triplet, [anchor, positive, negative],
                    attrs={"margin": float(margin), "p": float(p), "eps": float(eps),
                           "reduction": reduction},
                    name=name, prefix="TripletMarginLoss")
