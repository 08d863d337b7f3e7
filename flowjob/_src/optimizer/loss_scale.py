"""``flow.optimizer.loss_scale``: ``static_loss_scale`` and ``dynamic_loss_scale`` policies."""

from ._loss_scale import (
    DynamicLossScalePolicy,
    LossScalePolicy,
    StaticLossScalePolicy,
    dynamic_loss_scale,
    static_loss_scale,
)

__all__ = [
    "LossScalePolicy",
    "StaticLossScalePolicy",
    "DynamicLossScalePolicy",
    "static_loss_scale",
    "dynamic_loss_scale",
]
