"""``flow.experimental``: of OneFlow v0.4's experimental namespace, flowjob has the legacy
ops exported there (``unique_with_counts``, ``indexed_slices_reduce_sum``, ``square_sum``,
eager mode's one-to-one ``eager_assign_121``, slices of whole split blobs ``logical_slice`` and
``logical_slice_assign``), stale variable copies (``ssp_variable_proxy``), scope attributes
(``scope.config``), the interface blob reads and writes of variables
(``get/set_interface_blob_value``) and the Python-kernel custom op modules
(``custom_op_module``) and the job-function switch ``enable_typing_check``. The eager API
v0.4.0 shipped there (``Tensor``, ``nn`` modules, ``optim``) lives in its own packages
(``imperative``, ``tensor_ops``, ``nn_modules``, ``optim``); ``flowjob/experimental.py`` gathers
them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .export._jobset import get_job_set
from .graph import Blob, apply_op, scope_config
from .ops import (
    eager_assign_121,
    indexed_slices_reduce_sum,
    square_sum,
    ssp_variable_proxy,
    unique_with_counts,
)
from .ops.array_ops import assign
from .runtime import enable_typing_check
from .userop import CustomOpModule, custom_op_module

__all__ = [
    "CustomOpModule",
    "custom_op_module",
    "eager_assign_121",
    "enable_typing_check",
    "get_interface_blob_value",
    "get_job_set",
    "indexed_slices_reduce_sum",
    "logical_slice",
    "logical_slice_assign",
    "scope",
    "set_interface_blob_value",
    "square_sum",
    "ssp_variable_proxy",
    "unique_with_counts",
]


class _ScopeNamespace:
    """``flow.experimental.scope``: ``config(**attrs)`` sets scope attributes (OneFlow's
    ``quantization_aware_training``) for the ops created inside."""

    config = staticmethod(scope_config)


scope = _ScopeNamespace()


def _variable(op_name: str, where: str):
    from .checkpoint import get_all_variables

    variables = get_all_variables()
    if op_name not in variables:
        raise KeyError(
            f"flow.experimental.{where}({op_name!r}): no variable of that name in the defined "
            f"jobs (interface blobs flowjob reads and writes are variables; there are "
            f"{len(variables)}: {sorted(variables)[:8]})"
        )
    return variables[op_name]


def get_interface_blob_value(op_name: str) -> np.ndarray:
    """OneFlow's read of an interface blob by op name: the current value of variable
    ``op_name`` (after the calls made so far)."""
    return np.array(_variable(op_name, "get_interface_blob_value").numpy())


def set_interface_blob_value(op_name: str, ndarray: np.ndarray) -> None:
    """OneFlow's write of an interface blob by op name: assigns ``ndarray`` (same shape and
    dtype) to variable ``op_name``; later calls of every job see it."""
    from .checkpoint import load_variables

    _variable(op_name, "set_interface_blob_value")
    load_variables({op_name: ndarray}, ignore_mismatch=False)


def _slices(where: str, x: Blob, slice_tup_list: Sequence[tuple]) -> tuple[slice, ...]:
    """OneFlow's (start, stop, step) per axis, None and negative indices as Python's."""
    items = list(slice_tup_list)
    if len(items) != x.ndim or any(len(t) != 3 for t in items):
        raise ValueError(
            f"flow.experimental.{where}({x.lbn}): expected one (start, stop, step) per axis "
            f"of its {x.ndim}-d input, got {slice_tup_list!r}"
        )
    for *_, step in items:
        if step is not None and (type(step) is not int or step < 1):
            raise ValueError(
                f"flow.experimental.{where}({x.lbn}): steps must be ints >= 1, got {step!r}"
            )
    return tuple(slice(*t) for t in items)


def _lower_slice(x, *, slices):
    return x[slices]


def _lower_slice_assign(x, value, *, slices):
    return x.at[slices].set(value.astype(x.dtype))


def logical_slice(x: Blob, slice_tup_list: Sequence[tuple], name: str | None = None) -> Blob:
    """``x[start:stop:step, ...]`` of the whole (logical) blob, however it is split among
    devices."""
    slices = _slices("logical_slice", x, slice_tup_list)
    return apply_op(
        "logical_slice",
        _lower_slice,
        [x],
        attrs={"slices": slices},
        name=name,
        prefix="LogicalSlice",
    )


def logical_slice_assign(
    x: Blob, value: Blob, slice_tup_list: Sequence[tuple], name: str | None = None
) -> None:
    """After the job, variable ``x`` holds ``value`` in ``x[start:stop:step, ...]`` (the rest
    unchanged), however it is split among devices."""
    slices = _slices("logical_slice_assign", x, slice_tup_list)
    updated = apply_op(
        "logical_slice_assign",
        _lower_slice_assign,
        [x, value],
        attrs={"slices": slices},
        name=name,
        prefix="LogicalSliceAssign",
    )
    assign(x, updated)
