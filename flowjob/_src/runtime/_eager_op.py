"""Ops run at once outside any job (OneFlow v0.4's eager ``flow.builtin_op(...)`` calls).

In eager mode OneFlow runs an op built outside a job function on eager values straight away.
flowjob records ops only into a job graph, so ``run_eagerly`` makes a throwaway one-device
graph whose eager hook is the eager calls' own ``Evaluator``: the inputs become its input
ops, ``body`` records the op through the same op functions a job body uses, and each op is
evaluated as it is recorded (``run_op``), exactly as in an eager job's body.

Data pipeline ops (readers, decoders, image ops: feed ops) run the same way, on the host. What
only the pipeline holds (a batch of OFRecords, tensor buffers) goes in and comes out as a
``HostValue``, and a reader keeps reading where it stopped when the caller hands the same
``streams`` to each call (OneFlow v0.4's eager data modules, ``nn.OfrecordReader``...).
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any, Callable, Sequence

import jax
import numpy as np

from .. import _dtypes
from .. import typing as tp
from ..graph import Blob, JobGraph, JobType, VariableStore, add_feed_op, is_host_only, tracing
from . import _config
from ._eager_call import Evaluator, eager_call_key
from ._trace import ParamSpec, _make_inputs

# Each eager op call draws its random key from its own counter, as an eager job's calls do.
_calls = itertools.count()


@dataclasses.dataclass(frozen=True)
class HostValue:
    """A value only the host data pipeline holds (a batch of OFRecords, tensor buffers) as an
    input or output of ``run_eagerly``: ``value`` as the pipeline's ops hand it over, with the
    ``shape`` and ``dtype`` (``record``, ``tensor_buffer``) of its blob."""

    value: Any
    shape: tuple[int, ...]
    dtype: _dtypes.DType


def run_eagerly(
    name: str,
    body: Callable[[list[Blob]], Sequence[Blob]],
    values: Sequence[Any],
    streams: dict[str, Any] | None = None,
) -> list[Any]:
    """Runs ``body`` on blobs holding ``values`` at once; returns its outputs' values.

    ``name`` names the throwaway job in errors (the op's name or type). ``values`` are arrays,
    or ``HostValue``s, which enter as data pipeline values (only pipeline ops read them); an
    output only the pipeline holds comes back as a ``HostValue``, the others as arrays.
    ``streams`` (op name -> stream) keeps the data sources of ``body`` (readers, coin flips)
    between calls: a call given the same dict continues their streams; None starts new ones."""
    _config.start_backend()  # as an eager job's call: machines and devices are final
    given = [v if isinstance(v, HostValue) else np.asarray(v) for v in values]
    arrays = [v for v in given if not isinstance(v, HostValue)]
    params = [
        ParamSpec(
            f"in_{i}",
            [tp.Numpy.Placeholder(a.shape, dtype=_dtypes.as_dtype(a.dtype), batch_axis=None)],
            False,
        )
        for i, a in enumerate(arrays)
    ]
    store = VariableStore()
    evaluator = Evaluator(
        name,
        store,
        [(a, None) for a in arrays],
        eager_call_key(next(_calls)),
        {} if streams is None else streams,
    )
    graph = JobGraph(name, JobType.PREDICT, _config.FunctionConfig())
    graph.eager = evaluator
    with tracing(graph, store):
        placeholders = iter(_make_inputs(graph, params))
        blobs = [
            _host_input(f"host_in_{i}", v) if isinstance(v, HostValue) else next(placeholders)
            for i, v in enumerate(given)
        ]
        outputs = list(body(blobs))
    return [_output(evaluator, b) for b in outputs]


def _host_input(name: str, value: HostValue) -> Blob:
    """A pipeline value as a feed op of its own (what pipeline ops take as input)."""
    return add_feed_op(
        "host_value",
        [],
        lambda: value.value,
        name=name,
        outputs=[(tuple(value.shape), value.dtype, False)],
    )


def _output(evaluator: Evaluator, blob: Blob) -> Any:
    if is_host_only(blob):
        return HostValue(evaluator.host[id(blob)], tuple(blob.shape), blob.dtype)
    # A dynamic output (argwhere) comes back at its real shape, as blob.numpy() gives it.
    if id(blob) in evaluator.real:
        return evaluator.value(blob)
    return evaluator.values[id(blob)]
