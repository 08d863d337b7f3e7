"""Losses: cross-entropies (per example, no reduction), ``flow.combined_margin_loss`` and
``flow.losses.add_loss``. The functional losses with ``reduction=`` are in
``_functional_losses``."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ..graph import Blob, RealShape, apply_op, current_graph
from ..graph._real_shape import fill_padding
from ._shape import squeeze
from ._util import check_name, fail, require_blob


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


# Dynamic inputs (examples, or classes, of real size below the padded one): padding labels
# pick class 0, and padding classes get the lowest logit (no probability).
def _per_example_real(shapes, padded, **_):
    labels, logits = (tuple(s) for s in shapes)
    if labels not in (logits[:-1], logits[:-1] + (1,)) and labels != logits:
        raise ValueError(f"labels of real shape {labels} do not match logits {logits}")
    return logits[:-1]


def _class_masked(lowering, fill):
    def masked(labels, logits, *, real):
        labels = fill_padding(labels, real[0], 0)
        logits = fill_padding(logits, real[1], 0, range(logits.ndim - 1))
        classes = [logits.ndim - 1]
        return lowering(labels, fill_padding(logits, real[1], fill(logits.dtype), classes))

    return masked


def _finfo_min(dtype):
    return jnp.finfo(dtype).min


_SPARSE_SOFTMAX_CE_REAL = RealShape(
    _per_example_real, _class_masked(_lower_sparse_softmax_ce, _finfo_min)
)


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
        real_shape=_SPARSE_SOFTMAX_CE_REAL,
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


def _one(dtype):
    return 1


# Padding probabilities are 1 in padding rows (no log of 0), 0 in padding classes.
def _masked_sparse_ce(labels, prediction, *, real):
    labels = fill_padding(labels, real[0], 0)
    prediction = fill_padding(prediction, real[1], 0, [prediction.ndim - 1])
    prediction = fill_padding(prediction, real[1], 1, range(prediction.ndim - 1))
    return _lower_sparse_ce(labels, prediction)


_SPARSE_CE_REAL = RealShape(_per_example_real, _masked_sparse_ce)


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
        real_shape=_SPARSE_CE_REAL,
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


_SOFTMAX_CE_REAL = RealShape(_per_example_real, _class_masked(_lower_softmax_ce, _finfo_min))


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
        real_shape=_SOFTMAX_CE_REAL,
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
