"""Deprecated OneFlow spellings of the top-level namespaces, in one place.

Each works as its replacement does and prints OneFlow's deprecation line once per process
(``_deprecation.warn_once``). The namespaces re-export them: ``flow.FixedTensorDef``,
``flow.MirroredTensorDef``, ``flow.fixed_placement``, ``flow.device_prior_placement``,
``flow.scope.current_scope`` and ``flow.distribute.consistent_strategy/mirrored_strategy``.
"""

from __future__ import annotations

import dataclasses

from . import _dtypes
from ._deprecation import warn_once
from .graph import LogicalView, Scope, consistent_view, current_scope, mirrored_view, placement
from .typing import ArgBlobDef, ListNumpy, Numpy

_PLACEMENT_HINT = ("oneflow.device_prior_placement/oneflow.fixed_placement will be removed in "
                   "the future, use oneflow.scope.placement instead.")


def FixedTensorDef(shape, dtype=_dtypes.float32, batch_axis=0, name=None) -> ArgBlobDef:  # noqa: N802
    """Legacy default-argument placeholder, same as ``Numpy.Placeholder``."""
    warn_once("FixedTensorDef", "oneflow.FixedTensorDef has been deprecated. "
              "Please use oneflow.typing.Numpy.Placeholder instead.")
    return dataclasses.replace(Numpy.Placeholder(shape, dtype, batch_axis), name=name)


def MirroredTensorDef(shape, dtype=_dtypes.float32, batch_axis=0, name=None) -> ArgBlobDef:  # noqa: N802
    """Legacy default-argument placeholder, same as ``ListNumpy.Placeholder``."""
    warn_once("MirroredTensorDef", "oneflow.MirroredTensorDef has been deprecated. "
              "Please use oneflow.typing.ListNumpy.Placeholder instead.")
    return dataclasses.replace(ListNumpy.Placeholder(shape, dtype, batch_axis), name=name)


def fixed_placement(device_tag: str, machine_device_ids: str | list[str] = "0:0") -> placement:
    """Old name of ``flow.scope.placement``."""
    warn_once("fixed_placement", _PLACEMENT_HINT)
    return placement(device_tag, machine_device_ids)


def device_prior_placement(device_tag: str,
                           machine_device_ids: str | list[str] = "0:0") -> placement:
    """Old name of ``flow.scope.placement`` (one warning shared with ``fixed_placement``)."""
    warn_once("fixed_placement", _PLACEMENT_HINT)
    return placement(device_tag, machine_device_ids)


def scope_current_scope() -> Scope:
    """``flow.scope.current_scope()``: old spelling of ``flow.current_scope()``."""
    warn_once("scope.current_scope", "oneflow.scope.current_scope will be removed in the "
                                     "future, use oneflow.current_scope instead.")
    return current_scope()


def consistent_strategy() -> LogicalView:
    """Old name of ``flow.scope.consistent_view()``."""
    warn_once("consistent_strategy", "flow.distribute.consistent_strategy() is deprecated, "
              "use flow.scope.consistent_view()")
    return consistent_view()


def mirrored_strategy() -> LogicalView:
    """Old name of ``flow.scope.mirrored_view()``."""
    warn_once("mirrored_strategy", "flow.distribute.mirrored_strategy() is deprecated, "
              "use flow.scope.mirrored_view()")
    return mirrored_view()
