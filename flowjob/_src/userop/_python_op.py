"""User ops whose kernels are Python functions (OneFlow v0.4's python kernels).

A ``jax.numpy`` kernel is traced into the job's compiled step like any op. A NumPy kernel runs
on the host through ``jax.pure_callback``: this is the one place where host code runs inside a
compiled step (XLA stops, copies the inputs to the host, calls Python, copies the results
back), so it costs a device-host round trip per call and per gradient. Its output shapes and
dtypes must be known before it runs: ``infer`` gives them (default: like the first input) and
every result is checked against them. In a job placed on several devices the kernel sees
whole (gathered) blobs: XLA moves them to one device around the callback.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import jax
import numpy as np

from .._enum import Mode
from ..errors import OpError
from ..graph import (
    Blob,
    KernelSite,
    PythonKernelError,
    apply_host_op,
    apply_op,
    call_kernel,
)
from ._registry import OpCall, OpSpec, register


class KernelKind(Mode):
    """What a Python kernel computes with."""

    NUMPY = "numpy"  # runs on the host through jax.pure_callback
    JAX = "jax"  # jax.numpy, compiled into the job


def _as_tuple(value: Any) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _specs(
    infer: Callable[..., Any] | None, xs: Sequence[Any], n_out: int, attrs: dict[str, Any]
) -> tuple[jax.ShapeDtypeStruct, ...]:
    if infer is None:
        if not xs:
            raise OpError("a Python op without inputs needs infer= to give its output shapes")
        return (jax.ShapeDtypeStruct(xs[0].shape, xs[0].dtype),) * n_out
    given = infer(*[jax.ShapeDtypeStruct(x.shape, x.dtype) for x in xs], **attrs)
    one_pair = (
        isinstance(given, tuple)
        and len(given) == 2
        and isinstance(given[0], (tuple, list))
        and not isinstance(given[1], (tuple, list))
    )
    given = (given,) if one_pair else _as_tuple(given)
    return tuple(
        jax.ShapeDtypeStruct(tuple(s.shape), np.dtype(s.dtype))
        if hasattr(s, "shape")
        else jax.ShapeDtypeStruct(tuple(s[0]), np.dtype(s[1]))
        for s in given
    )


def host_kernel(
    where: str,
    site: KernelSite,
    kernel: Callable[..., Any],
    expected: tuple[jax.ShapeDtypeStruct, ...],
    names: Sequence[str],
    attrs: dict[str, Any],
) -> Callable[..., tuple]:
    """``kernel`` as ``jax.pure_callback`` runs it: its results checked against ``expected``
    (count, shape, values its dtype holds) and its errors kept for the caller
    (graph/_host_kernel.py). ``where``: which of the op's kernels, for messages."""

    def checked(*arrays):
        results = kernel(*[np.asarray(a) for a in arrays], **attrs)
        results = _as_tuple(results)
        if len(results) != len(expected):
            raise PythonKernelError(
                f"{where} of {site.describe()} returned {len(results)} value(s), expected "
                f"{len(expected)} ({', '.join(names)})"
            )
        return tuple(
            _checked_value(f"{where} of {site.describe()}", name, spec, value)
            for name, spec, value in zip(names, expected, results)
        )

    return lambda *arrays: call_kernel(site, where, checked, *arrays)


def _checked_value(where: str, name: str, spec: jax.ShapeDtypeStruct, value: Any) -> np.ndarray:
    if value is None:
        raise PythonKernelError(f"{where} returned None for {name!r}, expected an array")
    value = np.asarray(value)
    if value.shape != spec.shape:
        raise PythonKernelError(
            f"{where} returned {name!r} of shape {value.shape}, expected {spec.shape} (its "
            "shape inference)"
        )
    target = np.dtype(spec.dtype)
    if value.dtype == target or np.can_cast(value.dtype, target, "safe"):
        return value.astype(target, copy=False)
    kind, target_kind = _kind(value.dtype), _kind(target)
    if kind is None or target_kind is None:
        raise PythonKernelError(
            f"{where} returned {name!r} as {value.dtype}, which does not convert to {target}"
        )
    with np.errstate(invalid="ignore", over="ignore"):
        cast = value.astype(target)
        # The values must survive the cast: integers and flags exactly (a float's fraction
        # truncated, as a cast does), floats without overflowing to infinity.
        if target_kind == "f":
            bad = np.isfinite(value) & ~np.isfinite(cast.astype(np.float64))
        elif kind == "f":
            wide = value.astype(np.float64)
            bad = ~np.isfinite(wide) | (cast.astype(np.float64) != np.trunc(wide))
        else:
            bad = cast.astype(value.dtype) != value
    if np.any(bad):
        first = value[bad].flat[0].item()
        raise PythonKernelError(
            f"{where} returned {name!r} with values its dtype {target} cannot hold (e.g. "
            f"{first!r} of dtype {value.dtype}); convert them in the kernel"
        )
    return cast


def _kind(dtype: np.dtype) -> str | None:
    """'f' (float, bfloat16 included), 'i' (integer) or 'b' (bool); None: none of them."""
    if jax.dtypes.issubdtype(dtype, np.floating):
        return "f"
    if jax.dtypes.issubdtype(dtype, np.integer):
        return "i"
    return "b" if dtype == np.bool_ else None


def _numpy_lowering(
    op: str,
    inputs: Sequence[str],
    outputs: Sequence[str],
    forward: Callable[..., Any],
    backward: Callable[..., Any] | None,
    infer: Callable[..., Any] | None,
    site: KernelSite,
) -> Callable[..., Any]:
    def lowering(*xs, **attrs):
        outs = _specs(infer, xs, len(outputs), attrs)
        fwd_host = host_kernel("the forward kernel", site, forward, outs, outputs, attrs)

        @jax.custom_vjp
        def run(*xs):
            return jax.pure_callback(fwd_host, outs, *xs)

        def run_fwd(*xs):
            ys = run(*xs)
            return ys, (xs, ys)

        def run_bwd(saved, grads):
            if backward is None:
                raise OpError(
                    f"{op} has no backward kernel, so no gradient flows through it: "
                    "register it with backward="
                )
            xs, ys = saved
            ins = tuple(jax.ShapeDtypeStruct(x.shape, x.dtype) for x in xs)
            names = [f"gradient of {a}" for a in inputs]
            bwd_host = host_kernel("the backward kernel", site, backward, ins, names, attrs)
            return tuple(jax.pure_callback(bwd_host, ins, *xs, *ys, *grads))

        run.defvjp(run_fwd, run_bwd)
        ys = run(*xs)
        return ys if len(ys) > 1 else ys[0]

    return lowering


def _jax_lowering(
    forward: Callable[..., Any], backward: Callable[..., Any] | None
) -> Callable[..., Any]:
    if backward is None:
        return forward  # JAX differentiates the kernel itself

    def lowering(*xs, **attrs):
        @jax.custom_vjp
        def run(*xs):
            return _as_tuple(forward(*xs, **attrs))

        def run_fwd(*xs):
            ys = run(*xs)
            return ys, (xs, ys)

        def run_bwd(saved, grads):
            xs, ys = saved
            return _as_tuple(backward(*xs, *ys, *grads, **attrs))

        run.defvjp(run_fwd, run_bwd)
        ys = run(*xs)
        return ys if len(ys) > 1 else ys[0]

    return lowering


def register_python_op(
    op_type: str,
    forward: Callable[..., Any],
    *,
    inputs: Sequence[str] = ("in",),
    outputs: Sequence[str] = ("out",),
    backward: Callable[..., Any] | None = None,
    infer: Callable[..., Any] | None = None,
    attrs: dict[str, Any] | None = None,
    kernel: KernelKind | str = KernelKind.NUMPY,
) -> None:
    """Registers ``op_type`` for ``flow.user_op_builder``, with Python kernels.

    ``forward(*input_arrays, **attrs)`` returns the outputs (one array or a tuple, in
    ``outputs`` order). ``backward(*inputs, *outputs, *output_grads, **attrs)`` returns one
    gradient per input. ``infer(*input_specs, **attrs)`` gives each output's ``(shape,
    dtype)`` (or a ``jax.ShapeDtypeStruct``); without it a NumPy kernel's outputs are shaped
    like its first input, and a JAX kernel's come from tracing it. ``attrs`` maps attribute
    names to defaults (``None``: required). Registering a name again replaces it.
    """
    inputs, outputs = tuple(inputs), tuple(outputs)
    on_host = KernelKind(kernel) is KernelKind.NUMPY
    lowering = None if on_host else _jax_lowering(forward, backward)

    def build(c: OpCall) -> dict[str, list[Blob]]:
        blobs = [c.input(arg) for arg in inputs]
        if on_host:
            out = apply_host_op(
                op_type,
                lambda site: _numpy_lowering(
                    f"Python op {op_type!r}", inputs, outputs, forward, backward, infer, site
                ),
                blobs,
                c.attrs,
                c.name,
            )
        else:
            out = apply_op(op_type, lowering, blobs, attrs=c.attrs, name=c.name)
        return {arg: [b] for arg, b in zip(outputs, _as_tuple(out))}

    register(OpSpec(op_type, inputs, outputs, build, dict(attrs or {})), replace=True)
