"""Writing a value into a variable: ``flow.assign`` and ``flow.system.assign``.

The job writes ``value`` into the variable after it ran (as its optimizer updates and the
moving statistics of batch normalization): reads of the variable in the same call see the old
value, the next call sees the new one. Train and predict jobs alike, as in OneFlow (a predict
job that assigns returns its new state like a train step: runtime/_program.py).
"""

from __future__ import annotations

from typing import Any

from ..graph import Blob, current_graph
from ._creation import cast
from ._util import fail, require_blob


def _assign(public: str, ref: Blob, value: Blob, name: str | None) -> None:
    require_blob(public, ref, "ref", name)
    require_blob(public, value, "value", name)
    if ref.op.kind != "variable":
        fail(public, f"ref must be a variable (flow.get_variable), got {ref.lbn}", name)
    if value.shape != ref.shape:
        fail(
            public,
            f"value {value.lbn} has shape {value.shape}, the variable {ref.lbn} {ref.shape}",
            name,
        )
    if value.dtype != ref.dtype:
        value = cast(value, ref.dtype)
    current_graph().assign(ref, value)


def assign(ref: Blob, value: Blob, dtype: Any = None, name: str | None = None) -> None:
    """After the job, the variable ``ref`` holds ``value`` (cast to its dtype; ``dtype`` is
    OneFlow's unused argument)."""
    _assign("flow.assign", ref, value, name)


def system_assign(
    ref: Blob,
    value: Blob,
    validate_shape: Any = None,
    use_locking: Any = None,
    name: str | None = None,
) -> Blob:
    """``flow.system.assign``: ``flow.assign`` that returns ``ref``."""
    _assign("flow.system.assign", ref, value, name)
    return ref


def eager_assign_121(ref: Blob, value: Blob) -> Blob:
    """OneFlow's ``flow.experimental.eager_assign_121`` (a one-to-one assign of eager mode):
    ``flow.assign`` in an eager job, returning ``ref``."""
    public = "flow.experimental.eager_assign_121"
    if current_graph().eager is None:
        fail(public, "needs eager mode (flow.enable_eager_execution(True)); lazy: flow.assign")
    _assign(public, ref, value, None)
    return ref
