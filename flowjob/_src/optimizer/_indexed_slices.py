"""``config.indexed_slices_optimizer_conf``: row-wise ("lazy") updates of gathered variables.

OneFlow v0.4's ``IndexedSlicesOptimizerRewritePass`` replaces ``sgd``/``momentum``/``adam``
updates of a listed variable by their ``indexed_slices_*`` kernels when the variable's only
gradient is the one of a ``gather`` along axis 0 (possibly through scalar multiplications).
Those kernels touch only the rows whose index was gathered: the other rows, and their
momentum/``m``/``v``, keep their values (no weight decay, no momentum decay). The rewrite is
skipped (dense update) with a regularizer, gradient clipping or loss scaling, as in OneFlow.
The row masks themselves are a link of the optimizer chain (``transforms.keep_untouched_rows``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._optimizers import SGD, Adam

__all__ = ["sparse_variables"]

_PASS_THROUGH = ("scalar_multiply", "parallel_cast", "with_distribute")


def _included(conf: Any) -> set[str]:
    if not isinstance(conf, Mapping) or not conf.get("enable", True):
        return set()
    names = conf.get("include_op_names", {})
    names = names.get("op_name", []) if isinstance(names, Mapping) else names
    return {names} if isinstance(names, str) else set(names)


def sparse_variables(
    graph: Any, optimizer: Any, trained: list[str], regularized: set[str]
) -> dict[str, Any]:
    """``{variable: indices blob}`` for the variables this job updates row-wise."""
    flags = getattr(graph.config, "flags", {}) if graph.config is not None else {}
    included = _included(flags.get("indexed_slices_optimizer_conf"))
    if not included or not isinstance(optimizer, (SGD, Adam)):
        return {}
    if optimizer.grad_clipping is not None or optimizer.loss_scale_policy is not None:
        return {}
    consumers: dict[int, list[Any]] = {}
    for op in graph.ops:
        for blob in op.inputs:
            consumers.setdefault(id(blob), []).append(op)
    out = {}
    for name in trained:
        if name not in included or name in regularized:
            continue
        blob = graph.variables[name]
        while True:
            users = consumers.get(id(blob), [])
            if len(users) != 1:
                break
            op = users[0]
            if op.op_type in _PASS_THROUGH and op.inputs[0] is blob:
                blob = op.outputs[0]
                continue
            if (
                op.op_type == "gather"
                and op.inputs[0] is blob
                and op.attrs["axis"] == 0
                and op.attrs["batch_dims"] == 0
            ):
                out[name] = op.inputs[1]
            break
    return out
