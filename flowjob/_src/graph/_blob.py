"""The records of a job graph: lazy blobs (``Blob``) and the named ops (``OpNode``) that make
them; the graph that holds them and the tracing context are in ``_graph.py``."""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import _dtypes
from .._enum import Mode
from . import _scope
from ._real_shape import RealShape

# Filled by flowjob._src.ops at import time: operator name -> function(a, b) implementing it
# on blobs.
OPERATORS: dict[str, Callable[..., Any]] = {}

# OneFlow's value of Blob.split_axis for a blob that is not split (flow.INVALID_SPLIT_AXIS).
INVALID_SPLIT_AXIS = -22


class Blob:
    """A lazy value in a job body: its shape and dtype are known, its data is not.

    Data leaves a job only through its return value, ``flow.watch`` or summary ops. In eager
    mode the body runs on every call and each blob also has its value (``numpy()``).
    """

    __slots__ = (
        "graph",
        "op",
        "index",
        "shape",
        "dtype",
        "is_dynamic",
        "micro_batches",
        "__weakref__",
    )
    __array_priority__ = 1000  # make `ndarray + blob` defer to Blob.__radd__

    def __init__(
        self,
        graph: Any,  # the JobGraph (_graph.py) that recorded it; not imported: one-way
        op: OpNode,
        index: int,
        shape: tuple[int, ...],
        dtype: _dtypes.DType,
        is_dynamic: bool = False,
    ):
        self.graph = graph
        self.op = op
        self.index = index
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtype
        self.is_dynamic = is_dynamic
        # > 1: the blob is that many values in turn (flow.unpack / flow.repeat; its ops run on
        # each, held stacked on a leading axis) until flow.pack / flow.acc gathers them
        self.micro_batches = 1

    @property
    def op_name(self) -> str:
        return self.op.name

    @property
    def logical_blob_name(self) -> str:
        suffix = "out" if len(self.op.outputs) <= 1 else f"out_{self.index}"
        return f"{self.op.name}/{suffix}"

    lbn = logical_blob_name

    @property
    def parallel_conf(self) -> _scope.ParallelConf:
        """The placement of the op that made this blob (OneFlow's ``blob.parallel_conf``);
        outside any placement scope, device 0:0 of the op's device tag."""
        placed = self.op.placement
        if placed is None:
            return _scope.ParallelConf(self.op.device_tag, ("0:0",))
        return _scope.ParallelConf(
            placed.requested_tag or placed.device_tag, placed.machine_device_ids
        )

    @property
    def parallel_size(self) -> int:
        """How many devices the op that made this blob is placed on: OneFlow's
        ``blob.parallel_size``, the device count of ``parallel_conf`` ("0:0-3" is 4)."""
        placed = self.op.placement
        return 1 if placed is None else len(placed.device_ids())

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def numel(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __repr__(self) -> str:
        dyn = ", dynamic" if self.is_dynamic else ""
        value = f", value={self.numpy()!r}" if self._has_value() else ""
        return f"Blob({self.lbn!r}, shape={self.shape}, dtype={self.dtype.name}{dyn}{value})"

    def __str__(self) -> str:
        return str(self.numpy()) if self._has_value() else repr(self)

    def _has_value(self) -> bool:
        """Eager mode, and not a record of the data pipeline (whose values stay there)."""
        return self.graph.eager is not None and self.dtype.np_dtype.kind != "O"

    # -- values: eager mode only (a lazy blob has none while the body is traced) -----------
    def numpy(self, rank: int | None = None) -> np.ndarray:
        """The blob's value as an ndarray (eager mode). ``rank``: None or 0 (one device)."""
        eager = self.graph.eager
        if eager is None:
            raise TypeError(
                f"{self!r} is a lazy blob and has no value while the job is traced: numpy() "
                "needs eager mode (flow.enable_eager_execution(True) before the job is "
                "defined); in a lazy job, return or watch the blob to get its value"
            )
        if rank not in (None, 0):
            raise ValueError(f"{self.lbn}: rank {rank!r} out of range, the blob is on 1 device")
        return eager.value(self)

    def numpy_list(self, rank: int | None = None) -> list[np.ndarray]:
        """``[numpy()]``: one array per device (eager mode runs on one device)."""
        return [self.numpy(rank)]

    def numpy_size(self) -> int:
        return 1

    def numpy_list_size(self) -> int:
        return 1

    # OneFlow's blobs (lazy and eager) defined no __bool__, __len__ or __iter__: every blob is
    # truthy (`if bias_blob:` means "a bias was given"), while len() and iteration failed.
    def __bool__(self) -> bool:
        return True

    def __len__(self) -> int:
        raise TypeError(
            f"len() of {self!r}: OneFlow's blobs have no len(); use blob.shape[0] for the "
            "size of the first axis"
        )

    def __iter__(self):
        raise TypeError(
            f"{self!r} is not iterable (OneFlow's blobs are not); index it, or use "
            "flow.split / flow.unpack to get its parts"
        )

    def __array__(self, dtype=None, copy=None):
        if self.graph.eager is not None:
            value = self.numpy()
            return value if dtype is None else value.astype(dtype)
        raise TypeError(
            f"{self!r} is a lazy blob and has no data while the job is traced: NumPy functions "
            "cannot be applied to it; use flowjob ops, or return/watch it to get NumPy values"
        )

    def __hash__(self) -> int:
        return id(self)

    def _binary(self, name: str, other: Any, reverse: bool = False):
        fn = OPERATORS[name]
        return fn(other, self) if reverse else fn(self, other)

    def __add__(self, o):
        return self._binary("add", o)

    def __radd__(self, o):
        return self._binary("add", o, True)

    def __sub__(self, o):
        return self._binary("subtract", o)

    def __rsub__(self, o):
        return self._binary("subtract", o, True)

    def __mul__(self, o):
        return self._binary("multiply", o)

    def __rmul__(self, o):
        return self._binary("multiply", o, True)

    def __truediv__(self, o):
        return self._binary("divide", o)

    def __rtruediv__(self, o):
        return self._binary("divide", o, True)

    def __pow__(self, o):
        return self._binary("pow", o)

    def __rpow__(self, o):
        return self._binary("pow", o, True)

    def __matmul__(self, o):
        return self._binary("matmul", o)

    def __rmatmul__(self, o):
        return self._binary("matmul", o, True)

    def __mod__(self, o):
        return self._binary("mod", o)

    def __neg__(self):
        return OPERATORS["negative"](self)

    def __abs__(self):
        return OPERATORS["abs"](self)

    def __eq__(self, o):  # type: ignore[override]
        return self._binary("equal", o)

    def __ne__(self, o):  # type: ignore[override]
        return self._binary("not_equal", o)

    def __lt__(self, o):
        return self._binary("less", o)

    def __le__(self, o):
        return self._binary("less_equal", o)

    def __gt__(self, o):
        return self._binary("greater", o)

    def __ge__(self, o):
        return self._binary("greater_equal", o)

    def __getitem__(self, key):
        return OPERATORS["getitem"](self, key)

    @property
    def split_axis(self) -> int:
        """The axis this blob is split along across devices, else ``INVALID_SPLIT_AXIS``.

        flowjob infers no SBP signatures: job inputs are split along their batch axis, blobs
        made by ``with_distribute(split(k))`` along ``k``, every other blob counts as not split.
        """
        op = self.op
        axis = op.attrs.get("batch_axis") if op.kind is OpKind.INPUT else None
        distribute = op.attrs.get("distribute") if op.op_type == "with_distribute" else None
        if distribute is not None and distribute.kind is _scope.Sbp.SPLIT:
            axis = distribute.axis
        return INVALID_SPLIT_AXIS if axis is None else int(axis) % max(self.ndim, 1)

    def with_distribute(self, distribute: Any) -> Blob:
        """Annotates the blob's SBP distribution (recorded; single-device runs ignore it)."""
        return OPERATORS["with_distribute"](self, distribute)


class OpKind(Mode):
    """Who runs an op (a ``str`` enum: readers of graphs may compare it with its value)."""

    DEVICE = "device"  # lowered to JAX, part of the program
    INPUT = "input"  # a job argument
    VARIABLE = "variable"
    HOST = "host"  # runs on the host after the call (summary ops; graph/_delivery.py)
    FEED = "feed"  # the host data pipeline, run before the program (graph/_feed.py)


@dataclass(eq=False)
class OpNode:
    """One named op of a job; ``kind`` says who runs it (``OpKind``)."""

    name: str
    op_type: str
    kind: OpKind
    lowering: Callable[..., Any] | None
    inputs: list[Blob]
    attrs: dict[str, Any]
    namespace: tuple[str, ...]
    device_tag: str
    user_frame: traceback.FrameSummary | None
    rng: bool = False
    placement: Any = None  # the flow.scope.placement active when the op was created
    outputs: list[Blob] = field(default_factory=list)
    real_shape: RealShape | None = None  # how it treats dynamic inputs (graph/_real_shape.py)
    # its lowering computes each output element from the inputs' elements at the same
    # (broadcast) index alone, so it runs on any axis order of same-shaped inputs
    elementwise: bool = False


OutputSpec = tuple[tuple[int, ...], _dtypes.DType, bool]  # shape, dtype, is_dynamic
