"""Ops, layers and losses. Importing this package fills ``flowjob._src.graph.OPERATORS``, which
implements the Python operators of blobs (``a + b``, ``x[1:3]``, ``-x``...)."""

from ..graph import OPERATORS
from . import array_ops, initializers, layers, losses, math, nn, regularizers
from ._assign import eager_assign_121, system_assign
from ._binary import binary as _binary
from ._creation import with_distribute
from ._ctc import ctc_loss
from ._functional_losses import smooth_l1_loss
from ._linalg import matmul as _matmul
from ._losses import combined_margin_loss
from ._qat import QatBackend, QatConfig
from ._quantization import fake_quantization, min_max_observer, moving_average_min_max_observer
from ._random import bernoulli, generate_random_batch_permutation_indices, shuffle
from ._reduce import square_sum
from ._slicing import getitem
from ._ssp import ssp_variable_proxy
from ._unary import abs as _abs
from ._unary import negative as _negative
from ._unique import indexed_slices_reduce_sum, unique_with_counts


def _register() -> None:
    for kind in (
        "add",
        "subtract",
        "multiply",
        "divide",
        "pow",
        "mod",
        "equal",
        "not_equal",
        "less",
        "less_equal",
        "greater",
        "greater_equal",
    ):
        OPERATORS[kind] = lambda a, b, _kind=kind: _binary(_kind, a, b)
    OPERATORS["matmul"] = lambda a, b: _matmul(a, b)
    OPERATORS["negative"] = lambda x: _negative(x)
    OPERATORS["abs"] = lambda x: _abs(x)
    OPERATORS["getitem"] = getitem
    OPERATORS["with_distribute"] = with_distribute


_register()

__all__ = [
    "ssp_variable_proxy",
    "QatBackend",
    "QatConfig",
    "array_ops",
    "initializers",
    "layers",
    "losses",
    "math",
    "nn",
    "regularizers",
    "smooth_l1_loss",
    "bernoulli",
    "generate_random_batch_permutation_indices",
    "shuffle",
    "system_assign",
    "eager_assign_121",
    "ctc_loss",
    "combined_margin_loss",
    "fake_quantization",
    "min_max_observer",
    "moving_average_min_max_observer",
    "square_sum",
    "unique_with_counts",
    "indexed_slices_reduce_sum",
]
