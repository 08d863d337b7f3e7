"""Deprecated OneFlow spellings of the top-level namespaces, in one place.

Each works as its replacement does and prints OneFlow's deprecation line once per process
(``_deprecation.warn_once``). The namespaces re-export them: ``flow.FixedTensorDef``,
``flow.MirroredTensorDef``, ``flow.fixed_placement``, ``flow.device_prior_placement``,
``flow.scope.current_scope``, ``flow.distribute.consistent_strategy/mirrored_strategy`` (and
their ``*_enabled`` queries), ``flow.name_scope`` and ``flow.deprecated.variable_scope``.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ContextManager

from .. import _dtypes
from .._deprecation import warn_once
from .._namespace import is_listed_deprecated
from ..graph import (
    LogicalView,
    Scope,
    consistent_view,
    current_graph,
    current_scope,
    in_job,
    mirrored_view,
    namespace,
    placement,
)
from ..runtime import default_session
from ..scope import mirrored_view_enabled
from ..typing import ArgBlobDef, ListNumpy, Numpy

_PLACEMENT_HINT = (
    "oneflow.device_prior_placement/oneflow.fixed_placement will be removed in "
    "the future, use oneflow.scope.placement instead."
)


def FixedTensorDef(shape, dtype=_dtypes.float32, batch_axis=0, name=None) -> ArgBlobDef:  # noqa: N802
    """Legacy default-argument placeholder, same as ``Numpy.Placeholder``."""
    warn_once(
        "FixedTensorDef",
        "oneflow.FixedTensorDef has been deprecated. "
        "Please use oneflow.typing.Numpy.Placeholder instead.",
    )
    return dataclasses.replace(Numpy.Placeholder(shape, dtype, batch_axis), name=name)


def MirroredTensorDef(shape, dtype=_dtypes.float32, batch_axis=0, name=None) -> ArgBlobDef:  # noqa: N802
    """Legacy default-argument placeholder, same as ``ListNumpy.Placeholder``."""
    warn_once(
        "MirroredTensorDef",
        "oneflow.MirroredTensorDef has been deprecated. "
        "Please use oneflow.typing.ListNumpy.Placeholder instead.",
    )
    return dataclasses.replace(ListNumpy.Placeholder(shape, dtype, batch_axis), name=name)


def fixed_placement(device_tag: str, machine_device_ids: str | list[str] = "0:0") -> placement:
    """Old name of ``flow.scope.placement``."""
    warn_once("fixed_placement", _PLACEMENT_HINT)
    return placement(device_tag, machine_device_ids)


def device_prior_placement(
    device_tag: str, machine_device_ids: str | list[str] = "0:0"
) -> placement:
    """Old name of ``flow.scope.placement`` (one warning shared with ``fixed_placement``)."""
    warn_once("fixed_placement", _PLACEMENT_HINT)
    return placement(device_tag, machine_device_ids)


def scope_current_scope() -> Scope:
    """``flow.scope.current_scope()``: old spelling of ``flow.current_scope()``."""
    warn_once(
        "scope.current_scope",
        "oneflow.scope.current_scope will be removed in the "
        "future, use oneflow.current_scope instead.",
    )
    return current_scope()


def consistent_strategy() -> LogicalView:
    """Old name of ``flow.scope.consistent_view()``."""
    warn_once(
        "consistent_strategy",
        "flow.distribute.consistent_strategy() is deprecated, use flow.scope.consistent_view()",
    )
    return consistent_view()


def mirrored_strategy() -> LogicalView:
    """Old name of ``flow.scope.mirrored_view()``."""
    warn_once(
        "mirrored_strategy",
        "flow.distribute.mirrored_strategy() is deprecated, use flow.scope.mirrored_view()",
    )
    return mirrored_view()


def consistent_strategy_enabled() -> bool:
    """Old name of ``flow.scope.consistent_view_enabled()``."""
    warn_once(
        "consistent_strategy_enabled",
        "oneflow.distribute.consistent_strategy_enabled "
        "will be removed in the future, use oneflow.scope.consistent_view_enabled instead.",
    )
    return not mirrored_view_enabled()


def mirrored_strategy_enabled() -> bool:
    """Old name of ``flow.scope.mirrored_view_enabled()``."""
    warn_once(
        "mirrored_strategy_enabled",
        "oneflow.distribute.mirrored_strategy_enabled "
        "will be removed in the future, use oneflow.scope.mirrored_view_enabled instead.",
    )
    return mirrored_view_enabled()


def name_scope(name: str) -> ContextManager[None]:
    """Old names (``flow.name_scope``, ``flow.deprecated.variable_scope``) of
    ``flow.scope.namespace``."""
    warn_once(
        "name_scope",
        "oneflow.name_scope/oneflow.experimental.name_scope/"
        "deprecated.variable_scope will be removed in the future, use "
        "oneflow.scope.namespace instead.",
    )
    return namespace(name)


def is_deprecated(func_or_class: Any) -> bool:
    """OneFlow's ``flow.is_deprecated``: True for the deprecated spellings flowjob keeps (each
    prints its one-time warning), those the public namespaces list as deprecated."""
    return is_listed_deprecated(func_or_class)


_MEMORY_STRATEGIES = ("reuse_mem_priority", "parallelism_priority", "custom_parallelism")


def inter_job_reuse_mem_strategy(strategy_str: str, job_set: Any = None, **kwargs: Any) -> None:
    """OneFlow's memory sharing between jobs: checked and ignored, since each flowjob job is
    its own XLA program whose buffers XLA plans."""
    if strategy_str not in _MEMORY_STRATEGIES:
        raise ValueError(
            f"flow.inter_job_reuse_mem_strategy: strategy_str must be one of "
            f"{', '.join(_MEMORY_STRATEGIES)}, got {strategy_str!r}"
        )
    if strategy_str == "custom_parallelism" and kwargs.get("job_name_groups") is None:
        raise ValueError(
            "flow.inter_job_reuse_mem_strategy('custom_parallelism') needs "
            "job_name_groups=[[job names], ...]"
        )


def InitEagerGlobalSession() -> None:  # noqa: N802 - OneFlow's spelling
    """OneFlow's starter of the eager session with the default configuration: starts the
    default session (and JAX) if it has not started. The execution mode is unchanged: it is
    ``flow.enable_eager_execution``'s."""
    default_session()
