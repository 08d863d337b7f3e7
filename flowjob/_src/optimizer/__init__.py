"""``flow.optimizer``: optimizers, learning-rate schedules, warmup and gradient clipping.

``TrainUpdate`` and ``sparse_variables`` are the runtime's entry points: one job's optimizer
step, and the variables ``indexed_slices_optimizer_conf`` updates row-wise."""

from . import grad_clipping, loss_scale, transforms, warmup
from ._base import Optimizer
from ._combined import CombinedOptimizer
from ._decay_schedules import (
    CosineScheduler,
    ExponentialScheduler,
    InverseTimeScheduler,
    LinearCosineScheduler,
    NaturalExpScheduler,
    PolynomialScheduler,
)
from ._indexed_slices import sparse_variables
from ._layerwise import LAMB, LARS, RMSProp
from ._optimizers import SGD, SGDW, Adam, AdamW, LazyAdam
from ._schedules import (
    CustomScheduler,
    LrScheduler,
    PiecewiseConstantScheduler,
    PiecewiseScalingScheduler,
)
from ._train_update import TrainUpdate

__all__ = [
    "Optimizer",
    "CombinedOptimizer",
    "SGD",
    "SGDW",
    "Adam",
    "AdamW",
    "LazyAdam",
    "RMSProp",
    "LAMB",
    "LARS",
    "LrScheduler",
    "PiecewiseConstantScheduler",
    "PiecewiseScalingScheduler",
    "CosineScheduler",
    "PolynomialScheduler",
    "ExponentialScheduler",
    "InverseTimeScheduler",
    "NaturalExpScheduler",
    "LinearCosineScheduler",
    "CustomScheduler",
    "warmup",
    "grad_clipping",
    "loss_scale",
    "transforms",
    "TrainUpdate",
    "sparse_variables",
]
