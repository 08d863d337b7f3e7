"""``flow.optimizer``: optimizers, learning-rate schedules, warmup and gradient clipping."""

from . import grad_clipping, loss_scale, warmup
from ._base import Optimizer
from ._combined import CombinedOptimizer
from ._legacy import from_model_update_conf, scheduler_from_conf
from ._optimizers import LAMB, LARS, SGD, SGDW, Adam, AdamW, LazyAdam, RMSProp
from ._schedules import (
    CosineScheduler,
    CustomScheduler,
    ExponentialScheduler,
    InverseTimeScheduler,
    LinearCosineScheduler,
    LrScheduler,
    NaturalExpScheduler,
    PiecewiseConstantScheduler,
    PiecewiseScalingScheduler,
    PolynomialSchduler,
    PolynomialScheduler,
)

__all__ = [
    "Optimizer", "CombinedOptimizer", "SGD", "SGDW", "Adam", "AdamW", "LazyAdam", "RMSProp",
    "LAMB", "LARS",
    "LrScheduler", "PiecewiseConstantScheduler", "PiecewiseScalingScheduler", "CosineScheduler",
    "PolynomialScheduler", "PolynomialSchduler", "ExponentialScheduler", "InverseTimeScheduler",
    "NaturalExpScheduler", "LinearCosineScheduler", "CustomScheduler",
    "warmup", "grad_clipping", "loss_scale", "from_model_update_conf", "scheduler_from_conf",
]
