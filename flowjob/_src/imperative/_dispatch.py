"""How an eager tensor op runs: ``apply(name, body, *tensors, **attrs)``.

``body(*blobs, **attrs)`` is the op written with flowjob's ops on blobs, the same functions a
job body calls. On tensors it runs as one compiled program per body, attributes, input shapes
and dtypes (``runtime.op_program`` records the body once; ``jax.jit`` compiles it), and when a
tensor input requires grad (and recording is on) the call also returns the op's ``jax.vjp``
pullback, whose residuals the autograd ``Node`` keeps: backward runs one more compiled call
per op, without running the forward again. The pullback is taken under ``jax.checkpoint``
with JAX's ``dots_saveable`` policy: it keeps the op's inputs and its matmul and convolution
results, and recomputes cheaper values (a batch norm's normalized values, a ReLU's mask)
in backward: batch norm and ReLU then keep one activation each, as PyTorch's kernels do.
On blobs (inside a job function, lazy or legacy eager) ``apply`` just calls ``body``: the
op joins the job like any other.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from .. import autograd, kernels
from ..graph import Blob
from ..runtime import NotAProgram, op_program, run_eagerly
from ._storage import CPU, next_key

_local_programs: dict[Any, Any] = {}
_lock = threading.Lock()
MAX_PROGRAMS = 8192


class _Program:
    """One body's compiled forward, and its forward-with-pullback per set of differentiated
    inputs."""

    __slots__ = ("program", "forward", "with_vjp")

    def __init__(self, program: Any):
        self.program = program
        self.forward = jax.jit(program.fn)
        self.with_vjp: dict[tuple[bool, ...], Callable] = {}

    def vjp_for(self, mask: tuple[bool, ...]) -> Callable:
        fn = self.with_vjp.get(mask)
        if fn is None:
            fn = jax.jit(_forward_with_vjp(self.program.fn, mask))
            self.with_vjp[mask] = fn
        return fn


def _forward_with_vjp(fn: Callable, mask: tuple[bool, ...]):
    """``run(key, *arrays) -> (outputs, pullback)``: the program differentiated with respect
    to the ``mask``ed inputs. An integer input that requires grad is differentiated as a
    float (OneFlow v0.4 let integer tensors require grad): the ops run on its float values,
    and its floating outputs carry the gradient (the caller casts their values back)."""

    def run(key, *arrays):
        order: list[bool] = []  # whether each output is differentiated, seen while tracing

        def differentiated(*diff):
            it = iter(diff)
            outs = fn(key, *[next(it) if m else a for a, m in zip(arrays, mask)])
            order[:] = [_differentiable(o.dtype) for o in outs]
            return (
                tuple(o for o, f in zip(outs, order) if f),
                tuple(o for o, f in zip(outs, order) if not f),
            )

        diff = [_as_float(a) for a, m in zip(arrays, mask) if m]
        # Under the policy the pullback saves only the op's inputs and its matmul and
        # convolution results; the rest (normalized values, masks, broadcast constants)
        # is recomputed in backward from the inputs, where plain ``jax.vjp`` would make
        # each one an output of this program, alive until backward.
        remat = jax.checkpoint(differentiated, policy=jax.checkpoint_policies.dots_saveable)
        float_outs, pullback, other_outs = jax.vjp(remat, *diff, has_aux=True)
        fi, oi = iter(float_outs), iter(other_outs)
        return tuple(next(fi) if f else next(oi) for f in order), pullback

    return run


def _as_float(array: Any) -> Any:
    if _differentiable(array.dtype):
        return array
    return array.astype(np.float64 if np.dtype(array.dtype).itemsize > 4 else np.float32)


@jax.jit
def _pull(pullback: Any, cotangents: tuple) -> tuple:
    return pullback(cotangents)


def _differentiable(dtype: Any) -> bool:
    return np.issubdtype(np.dtype(dtype), np.inexact)


_SCALARS = frozenset({int, float, bool, str, type(None)})


def _freeze(value: Any) -> Any:
    """``value`` as a hashable key that tells 1, 1.0 and True apart (they are different
    programs); raises ``TypeError`` for what cannot be one."""
    kind = type(value)
    if kind in _SCALARS and value == value:  # (NaN is never equal: made equal below)
        return (kind, value)
    if isinstance(value, (list, tuple)):
        return (type(value), tuple(_freeze(v) for v in value))
    if isinstance(value, dict):
        return (dict, tuple((k, _freeze(v)) for k, v in sorted(value.items())))
    if isinstance(value, np.ndarray):
        return (np.ndarray, value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, float) and value != value:  # NaN: equal to itself here
        return ("nan",)
    hash(value)
    return (type(value), value)


def _program_for(name: str, body: Callable, arrays: list, attrs: dict) -> _Program | None:
    specs = tuple((tuple(a.shape), np.dtype(a.dtype)) for a in arrays)
    try:
        frozen = tuple((k, _freeze(v)) for k, v in attrs.items())  # call order: a miss at worst
        key = (body, frozen, specs, kernels.lowering_platform())
    except TypeError:  # an attribute that is not a plain value: record it every time
        key = None
    found = _local_programs.get(key) if key is not None else None
    if found is not None:
        return found
    try:
        program = _Program(op_program(name, body, specs, attrs))
    except NotAProgram:
        program = None
    if key is not None and program is not None:
        with _lock:
            if len(_local_programs) >= MAX_PROGRAMS:
                _local_programs.clear()
            _local_programs[key] = program
    return program


def apply(name: str, body: Callable[..., Any], *inputs: Any, **attrs: Any) -> Any:
    """Runs the op ``body`` on ``inputs`` (tensors, or blobs inside a job) with ``attrs``;
    returns a tensor, or a tuple when ``body`` returns several blobs.

    Examples:
        >>> import numpy as np
        >>> import flowjob as flow
        >>> import flowjob.experimental as fx
        >>> from flowjob._src.imperative import apply
        >>> x = fx.Tensor(np.array([1.0, -2.0], np.float32), requires_grad=True)
        >>> y = apply("relu", lambda b: flow.math.relu(b), x)
        >>> y.sum().backward()
        >>> assert np.allclose(y.numpy(), [1.0, 0.0]) and np.allclose(x.grad.numpy(), [1.0, 0.0])
    """
    if any(isinstance(t, Blob) for t in inputs):
        return body(*inputs, **attrs)
    from ._tensor import Tensor  # the module that defines Tensor imports this one

    arrays = [t.array for t in inputs]
    where = inputs[0].device if inputs else CPU
    program = _program_for(name, body, arrays, attrs)
    if program is None:  # a dynamic output or a host op: op by op, no autograd
        outs = run_eagerly(name, lambda blobs: _as_tuple(body(*blobs, **attrs)), arrays)
        wrapped = tuple(Tensor._wrap(o, where=where) for o in outs)
        return wrapped[0] if len(wrapped) == 1 else wrapped
    key = next_key() if program.program.rng else _no_key()
    mask = tuple(t.requires_grad for t in inputs)
    record = any(mask) and autograd.is_grad_enabled()
    if not record:
        outs = program.forward(key, *arrays)
        wrapped = tuple(Tensor._wrap(o, where=where) for o in outs)
    else:
        outs, pullback = program.vjp_for(mask)(key, *arrays)
        floats = [_differentiable(o.dtype) for o in outs]
        out_specs = [(tuple(o.shape), o.dtype) for o, f in zip(outs, floats) if f]
        # an integer output computed as a float (an integer input that requires grad)
        declared = [o.dtype for o in program.program.outputs]
        outs = [o if o.dtype == d else o.astype(d) for o, d in zip(outs, declared)]

        def vjp(cotangents: list) -> list:
            cts = tuple(
                c if c.dtype == d else c.astype(d) for c, (_, d) in zip(cotangents, out_specs)
            )
            grads = iter(_pull(pullback, cts))
            return [next(grads) if m else None for m in mask]

        node = autograd.Node(name, vjp, inputs, out_specs)
        wrapped = []
        slot = 0
        for o, f in zip(outs, floats):
            if f:
                wrapped.append(Tensor._wrap(o, grad_fn=node, output_index=slot, where=where))
                slot += 1
            else:
                wrapped.append(Tensor._wrap(o, where=where))
        wrapped = tuple(wrapped)
    return wrapped[0] if program.program.single else wrapped


def _as_tuple(value: Any) -> tuple:
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,)


_NO_KEY: list[Any] = []


def _no_key() -> Any:
    """A fixed key for programs that draw nothing (their key input is unused)."""
    if not _NO_KEY:
        _NO_KEY.append(jax.random.PRNGKey(0))
    return _NO_KEY[0]
