"""``flow.experimental``: of OneFlow v0.4's experimental namespace, flowjob has the
Python-kernel custom op modules (``custom_op_module``) and the interface blob reads and
writes of variables (``get/set_interface_blob_value``); the rest of it (the eager
``nn.Module`` API of OneFlow 0.5) is not part of the legacy API flowjob re-creates."""

from __future__ import annotations

import numpy as np

from .userop import CustomOpModule, custom_op_module

__all__ = [
    "CustomOpModule",
    "custom_op_module",
    "get_interface_blob_value",
    "set_interface_blob_value",
]


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
