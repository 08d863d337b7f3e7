"""What a job body can ask about where it is: ``flow.current_scope()``,
``flow.current_global_function_desc()`` and ``flow.cast_to_current_logical_view``."""

from __future__ import annotations

from dataclasses import dataclass

from . import _scope
from ._blob import Blob
from ._graph import current_graph


@dataclass(frozen=True)
class ParallelDesc:
    """The devices of a scope: ``device_tag`` ("cpu"/"gpu") and OneFlow's placement strings."""

    device_tag: str
    machine_device_ids: tuple[str, ...]

    @property
    def parallel_num(self) -> int:
        return max(len(_scope.Placement(self.device_tag, self.machine_device_ids).device_ids()), 1)


@dataclass(frozen=True)
class Scope:
    """The scope ops are created in (OneFlow's ``Scope`` object, read-only)."""

    device_parallel_desc_symbol: ParallelDesc
    namespace: tuple[str, ...]

    @property
    def scope_op_name_prefixes(self) -> list[str]:
        return list(self.namespace)


def current_scope() -> Scope:
    """The current placement and namespace (``flow.current_scope()``)."""
    p = _scope.current_placement()
    desc = ParallelDesc(p.device_tag, p.machine_device_ids) if p else ParallelDesc("cpu", ("0:0",))
    return Scope(desc, _scope.current_namespace())


class FunctionDesc:
    """The job function being traced (OneFlow's ``FunctionDesc``)."""

    def __init__(self, graph) -> None:
        self.job_name = graph.name
        self.job_config = graph.config
        self._train = graph.is_trainable  # the declared type, as OneFlow's function desc

    def IsTrainable(self) -> bool:  # noqa: N802 - OneFlow's name
        """True for ``type="train"`` jobs."""
        return self._train

    def __repr__(self) -> str:
        return f"FunctionDesc({self.job_name!r}, trainable={self._train})"


def current_global_function_desc() -> FunctionDesc:
    """The job being traced; raises outside a job body."""
    return FunctionDesc(current_graph())


def cast_to_current_logical_view(x: Blob) -> Blob:
    """``x`` itself: flowjob blobs carry no consistent/mirrored kind to convert between."""
    return x
