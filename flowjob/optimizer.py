"""``flow.optimizer``: optimizers, learning-rate schedules, warmup and gradient clipping.

``TrainUpdate`` and ``sparse_variables`` are the runtime's entry points: one job's optimizer
step, and the variables ``indexed_slices_optimizer_conf`` updates row-wise."""

from ._src import legacy as _legacy
from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.legacy import from_model_update_conf, scheduler_from_conf
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
    PolynomialScheduler,
    RMSProp,
    TrainUpdate,
    grad_clipping,
    loss_scale,
    sparse_variables,
    warmup,
)

# OneFlow's deprecated spellings served here (each warns once when used, as OneFlow did).
_deprecations = {
    "PolynomialSchduler": _legacy.PolynomialSchduler,
}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
