"""One train job checks many op cases at once: forward values against a reference written
here in ``jax.numpy`` (or NumPy), and d(sum(y * c))/d(input) seen by ``flow.watch_diff``
against ``jax.vjp`` of that reference.

Each case is traced into the same job (one compilation for a whole family): every float input
gets its own zero variable added (so it has a gradient to watch), every float output ``y``
adds ``sum(y * c)`` to the loss with a fixed random cotangent ``c``; a zero learning rate leaves
the variables alone.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import jax
import jax.numpy as jnp
import numpy as np

import flowjob as flow
import flowjob.typing as tp


@dataclass
class Case:
    """``fn(*blobs)`` in a job should equal ``ref(*arrays)``; ``ref`` is a jax.numpy function
    (its ``jax.vjp`` is the gradient reference) unless ``grad=False``."""

    name: str
    fn: Callable
    ref: Callable
    inputs: Sequence[np.ndarray]
    rtol: float = 1e-5
    atol: float = 1e-5
    grad: bool = True
    grad_rtol: float | None = None
    grad_atol: float | None = None
    diff_inputs: Sequence[int] | None = None  # which inputs get gradients (default: floats)
    # compile the reference (and its vjp) as one program: pays off for references of many
    # small ops (strided-slice convolutions); simple ones run faster eagerly
    jit: bool = False
    result: dict = field(default_factory=dict, repr=False)


def _is_float(a: np.ndarray) -> bool:
    return np.asarray(a).dtype.kind == "f"


def run_cases(cases: Sequence[Case], seed: int = 0) -> None:
    """Runs every case in one train job and asserts each against its reference."""
    flow.clear_default_session()
    rng = np.random.default_rng(seed)
    flat: list[np.ndarray] = []
    slots: list[list[int]] = []
    for case in cases:
        slots.append(list(range(len(flat), len(flat) + len(case.inputs))))
        flat.extend(np.asarray(a) for a in case.inputs)
    grads: dict[tuple[int, int], np.ndarray] = {}
    cotangents: dict[int, np.ndarray] = {}

    def body(*xs):
        outs, loss = [], None
        for k, (case, idx) in enumerate(zip(cases, slots)):
            wanted = (
                case.diff_inputs
                if case.diff_inputs is not None
                else [j for j, i in enumerate(idx) if _is_float(flat[i])]
            )
            blobs = []
            for j, i in enumerate(idx):
                x = xs[i]
                if case.grad and j in wanted:
                    zero = flow.get_variable(
                        f"zero_{k}_{j}",
                        shape=flat[i].shape,
                        dtype=x.dtype,
                        initializer=flow.zeros_initializer(),
                    )
                    x = x + zero
                    flow.watch_diff(x, functools.partial(grads.__setitem__, (k, j)))
                blobs.append(x)
            y = case.fn(*blobs)
            outs.append(y)
            if case.grad and y.dtype in (flow.float16, flow.float32, flow.float64):
                c = rng.uniform(0.5, 1.5, y.shape).astype(np.dtype(y.dtype.np_dtype))
                cotangents[k] = c
                term = flow.math.reduce_sum(flow.cast(y * c, flow.float64))
                loss = term if loss is None else loss + term
        if loss is None:  # nothing differentiable: still a train job, with a constant loss
            loss = flow.math.reduce_sum(
                flow.get_variable("unused", shape=(1,), initializer=flow.zeros_initializer())
            )
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.0]), momentum=0
        ).minimize(loss)
        return tuple(outs)

    params = [
        inspect.Parameter(
            f"a{i}",
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            annotation=tp.Numpy.Placeholder(a.shape, dtype=a.dtype),
        )
        for i, a in enumerate(flat)
    ]
    ret = tuple[tuple(tp.Numpy for _ in cases)]

    def job(*xs):
        return body(*xs)

    job.__signature__ = inspect.Signature(params, return_annotation=ret)
    job.__annotations__ = {p.name: p.annotation for p in params} | {"return": ret}
    values = flow.global_function(type="train")(job)(*flat)
    flow.sync_default_session()
    failures = []
    for k, (case, idx) in enumerate(zip(cases, slots)):
        try:
            _check(
                case,
                values[k],
                [flat[i] for i in idx],
                cotangents.get(k),
                {j: g for (kk, j), g in grads.items() if kk == k},
            )
        except AssertionError as exc:
            failures.append(f"{case.name}: {exc}")
    assert not failures, "\n".join(failures)


def _check(case: Case, value, arrays, cotangent, grads) -> None:
    wanted = sorted(grads) if cotangent is not None else []
    assert cotangent is None or wanted or not any(_is_float(a) for a in arrays), (
        "no gradient was delivered"
    )

    def reference(args, cot):
        def partial_ref(*diff):
            full = list(args)
            for j, d in zip(wanted, diff):
                full[j] = d
            return case.ref(*full)

        y, vjp = jax.vjp(partial_ref, *[args[j] for j in wanted])
        return y, (vjp(cot.astype(y.dtype)) if wanted else ())

    cot = jnp.zeros(value.shape) if cotangent is None else jnp.asarray(cotangent)
    run = jax.jit(reference) if case.jit else reference
    expected, expected_grads = run([jnp.asarray(a) for a in arrays], cot)
    expected = np.asarray(expected)
    assert value.shape == expected.shape, f"shape {value.shape} != reference {expected.shape}"
    np.testing.assert_allclose(
        value.astype(np.float64) if value.dtype.kind != "b" else value,
        expected,
        rtol=case.rtol,
        atol=case.atol,
        err_msg="forward",
    )
    for j, g in zip(wanted, expected_grads):
        np.testing.assert_allclose(
            grads[j],
            np.asarray(g),
            rtol=case.grad_rtol or case.rtol,
            atol=case.grad_atol or case.atol,
            err_msg=f"gradient of input {j}",
        )


def uniform(shape, low=-1.0, high=1.0, dtype=np.float32, seed=0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)
