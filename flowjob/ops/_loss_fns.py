"""OneFlow's functional losses with ``reduction=``: ``flow.nn.MSELoss``, ``L1Loss``,
``BCELoss`` and ``BCEWithLogitsLoss``.

Built from flowjob ops as OneFlow builds them (ops named ``<name>_...``); ``"mean"`` and
``"sum"`` reduce over every element to shape ``(1,)``, ``"none"`` keeps the elementwise loss.
"""

from __future__ import annotations

from ..graph import Blob, current_graph
from ._binary import multiply, subtract
from ._reduce import reduce_mean, reduce_sum
from ._unary import abs as _abs
from ._unary import log, negative, square
from ._util import check_name, fail, require_blob

_REDUCTIONS = ("none", "mean", "sum")


def _check(public: str, input: Blob, target: Blob, reduction: str,  # noqa: A002
           name: str | None, default: str) -> str:
    check_name(public, name)
    require_blob(public, input, "input", name)
    require_blob(public, target, "target", name)
    if input.shape != target.shape:
        fail(public, f"input {input.shape} and target {target.shape} must have the same shape",
             name)
    if not input.dtype.is_floating:
        fail(public, f"input must be floating point, got {input.dtype.name}", name)
    if reduction not in _REDUCTIONS:
        fail(public, f"reduction must be one of {_REDUCTIONS}, got {reduction!r}", name)
    return name if name is not None else current_graph().unique_name(default)


def _reduce(loss: Blob, reduction: str, name: str) -> Blob:
    if reduction == "mean":
        return reduce_mean(loss, name=name + "_reduce_mean")
    if reduction == "sum":
        return reduce_sum(loss, name=name + "_reduce_sum")
    return loss


def _weighted(public: str, loss: Blob, weight: Blob | None, what: str, like: Blob,
              name: str) -> Blob:
    if weight is None:
        return loss
    require_blob(public, weight, what, name)
    if weight.shape != like.shape:
        fail(public, f"{what} {weight.shape} must have the input's shape {like.shape}", name)
    return multiply(weight, loss, name=f"{name}_{what}_mul")


def mse_loss(input: Blob, target: Blob, reduction: str = "mean",  # noqa: A002
             name: str | None = None) -> Blob:
    """``(target - input) ** 2``, reduced by ``reduction``."""
    name = _check("flow.nn.MSELoss", input, target, reduction, name, "MSELoss")
    diff = subtract(target, input, name=name + "_sub")
    return _reduce(square(diff, name=name + "_mean_squared"), reduction, name)


def l1_loss(input: Blob, target: Blob, reduction: str = "mean",  # noqa: A002
            name: str | None = None) -> Blob:
    """``|target - input|``, reduced by ``reduction``."""
    name = _check("flow.nn.L1Loss", input, target, reduction, name, "L1Loss")
    diff = subtract(target, input, name=name + "_sub")
    return _reduce(_abs(diff, name=name + "_abs"), reduction, name)


def bce_loss(input: Blob, target: Blob, weight: Blob | None = None,  # noqa: A002
             reduction: str = "mean", name: str | None = None) -> Blob:
    """``-weight * (target log(input) + (1 - target) log(1 - input))`` for probabilities
    ``input`` in (0, 1), reduced by ``reduction``."""
    public = "flow.nn.BCELoss"
    name = _check(public, input, target, reduction, name, "BCELoss")
    pos = multiply(target, log(input, name=name + "_log"), name=name + "_pos")
    one_minus_t = subtract(1.0, target, name=name + "_one_minus_target")
    one_minus_x = subtract(1.0, input, name=name + "_one_minus_input")
    neg = multiply(one_minus_t, log(one_minus_x, name=name + "_log_neg"), name=name + "_neg")
    loss = negative(pos + neg, name=name + "_negative")
    return _reduce(_weighted(public, loss, weight, "weight", input, name), reduction, name)


def bce_with_logits_loss(input: Blob, target: Blob, weight: Blob | None = None,  # noqa: A002
                         pos_weight: Blob | None = None, reduction: str = "mean",
                         name: str | None = None) -> Blob:
    """BCELoss on ``sigmoid(input)``, computed stably from the logits; ``pos_weight`` (shape
    ``(C,)`` for inputs ``(..., C)``) weighs the positive term."""
    from ._unary_math import log_sigmoid

    public = "flow.nn.BCEWithLogitsLoss"
    name = _check(public, input, target, reduction, name, "BCEWithLogitsLoss")
    log_p = log_sigmoid(input, name=name + "_log_sigmoid")
    log_not_p = log_sigmoid(negative(input, name=name + "_neg_input"),
                            name=name + "_log_sigmoid_neg")
    pos = multiply(target, log_p, name=name + "_pos")
    if pos_weight is not None:
        require_blob(public, pos_weight, "pos_weight", name)
        if pos_weight.shape not in ((input.shape[-1],), input.shape):
            fail(public, f"pos_weight {pos_weight.shape} must have shape {(input.shape[-1],)}"
                         f" or {input.shape}", name)
        pos = multiply(pos, pos_weight, name=name + "_pos_weight_mul")
    neg = multiply(subtract(1.0, target, name=name + "_one_minus_target"), log_not_p,
                   name=name + "_neg")
    loss = negative(pos + neg, name=name + "_negative")
    return _reduce(_weighted(public, loss, weight, "weight", input, name), reduction, name)
