"""Ops run at once outside any job (OneFlow v0.4's eager ``flow.builtin_op(...)`` calls).

In eager mode OneFlow runs an op built outside a job function on eager values straight away.
flowjob records ops only into a job graph, so ``run_eagerly`` makes a throwaway one-device
graph whose eager hook is the eager calls' own ``Evaluator``: the inputs become its input
ops, ``body`` records the op through the same op functions a job body uses, and each op is
evaluated as it is recorded (``run_op``), exactly as in an eager job's body.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable, Sequence

import jax
import numpy as np

from .. import _dtypes
from .. import typing as tp
from ..graph import Blob, JobGraph, JobType, VariableStore, tracing
from . import _config
from ._eager_call import Evaluator, eager_call_key
from ._trace import ParamSpec, _make_inputs

# Each eager op call draws its random key from its own counter, as an eager job's calls do.
_calls = itertools.count()


def run_eagerly(
    name: str, body: Callable[[list[Blob]], Sequence[Blob]], values: Sequence[Any]
) -> list[jax.Array]:
    """Runs ``body`` on blobs holding ``values`` (arrays) at once; returns its outputs' values.

    ``name`` names the throwaway job in errors (the op's name or type)."""
    _config.start_backend()  # as an eager job's call: machines and devices are final
    arrays = [np.asarray(v) for v in values]
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
        name, store, [(a, None) for a in arrays], eager_call_key(next(_calls)), {}
    )
    graph = JobGraph(name, JobType.PREDICT, _config.FunctionConfig())
    graph.eager = evaluator
    with tracing(graph, store):
        outputs = list(body(_make_inputs(graph, params)))
    # A dynamic output (argwhere) comes back at its real shape, as blob.numpy() gives it.
    return [
        evaluator.values[id(b)] if id(b) not in evaluator.real else evaluator.value(b)
        for b in outputs
    ]
