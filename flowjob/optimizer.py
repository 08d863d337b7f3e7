"""``flow.optimizer``: optimizers, learning-rate schedules, warmup and gradient clipping.

``TrainUpdate`` and ``sparse_variables`` are the runtime's entry points: one job's optimizer
step, and the variables ``indexed_slices_optimizer_conf`` updates row-wise."""

from ._src.optimizer import (
    LAMB,
    LARS,
    SGD,
    SGDW,
    Adam,
    AdamW,
    CombinedOptimizer,
    CosineScheduler,
    CustomScheduler,
    ExponentialScheduler,
    InverseTimeScheduler,
    LazyAdam,
    LinearCosineScheduler,
    LrScheduler,
    NaturalExpScheduler,
    Optimizer,
    PiecewiseConstantScheduler,
    PiecewiseScalingScheduler,
    PolynomialSchduler,
    PolynomialScheduler,
    RMSProp,
    TrainUpdate,
    from_model_update_conf,
    grad_clipping,
    loss_scale,
    scheduler_from_conf,
    sparse_variables,
    warmup,
)
