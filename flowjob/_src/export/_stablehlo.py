"""Serializing a job's forward program with ``jax.export`` (StableHLO), and loading it back.

The program's arguments are ``(variables, *inputs)``: weights stay out of the program (they
live in the saved model's safetensors file), so the file holds only the computation.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np
from jax import export

from .. import kernels
from ._program import ExportError, JobProgram

# Lowered for both, so a model saved on a CPU machine is served on a GPU one and back.
PLATFORMS = ("cpu", "cuda")


@dataclass
class SerializedProgram:
    data: bytes
    batch_polymorphic: bool
    platforms: tuple[str, ...]
    batch_note: str = ""  # why the program keeps the traced batch size


def _arg_specs(program: JobProgram, batch: Any) -> tuple[list, list]:
    variables = program.graph.variables
    var_specs = [
        jax.ShapeDtypeStruct(variables[n].shape, variables[n].dtype.np_dtype)
        for n in program.variable_names
    ]
    in_specs = [
        jax.ShapeDtypeStruct(
            (batch, *spec.shape[1:]) if batch is not None else spec.shape, np.dtype(spec.dtype)
        )
        for spec, _ in program.inputs
    ]
    return var_specs, in_specs


def _export(program: JobProgram, polymorphic: bool) -> export.Exported:
    batch = export.symbolic_shape("batch")[0] if polymorphic else None

    def forward(variables, *inputs):
        return program.forward(variables, inputs, batch_free_reshapes=polymorphic)

    var_specs, in_specs = _arg_specs(program, batch)
    fn = jax.jit(forward)
    with kernels.portable():  # no oneDNN custom calls in a serialized program
        try:
            return export.export(fn, platforms=PLATFORMS)(var_specs, *in_specs)
        except Exception:  # noqa: BLE001 - a jaxlib without the CUDA lowering rules: this one
            return export.export(fn)(var_specs, *in_specs)


def _batched(program: JobProgram) -> bool:
    """Every input and output has a leading batch axis of the traced batch size."""
    shapes = [spec.shape for spec, _ in [*program.inputs, *program.outputs]]
    if not program.inputs or not all(shapes):
        return False
    if any(blob.op.attrs.get("batch_axis", 0) != 0 for _, blob in program.inputs):
        return False
    return len({shape[0] for shape in shapes}) == 1


def _sample_inputs(program: JobProgram) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    out = []
    for spec, _ in program.inputs:
        dtype = np.dtype(spec.dtype)
        if dtype.kind == "f":
            out.append(rng.standard_normal(spec.shape).astype(dtype))
        else:  # small integers: valid indices and labels for most models
            out.append(rng.integers(0, 2, spec.shape).astype(dtype))
    return out


def _rows_independent(
    exp: export.Exported, program: JobProgram, variables: list[np.ndarray]
) -> bool:
    """The polymorphic program gives each row the result it gives it in the full batch."""
    inputs = _sample_inputs(program)
    rows = inputs[0].shape[0] // 2
    full = exp.call(variables, *inputs)
    part = exp.call(variables, *(x[:rows] for x in inputs))
    return all(
        np.allclose(np.asarray(a)[:rows], np.asarray(b), rtol=1e-4, atol=1e-5)
        for a, b in zip(full, part)
    )


def serialize(
    program: JobProgram, variables: dict[str, np.ndarray], batch_polymorphic: bool | None = None
) -> SerializedProgram:
    """``batch_polymorphic``: None tries a symbolic batch axis and keeps the traced batch size
    when the job cannot run at another one; True requires it; False never tries."""
    values = [variables[n] for n in program.variable_names]
    if batch_polymorphic is not False:
        reason = None
        if not _batched(program) or program.inputs[0][0].shape[0] < 2:
            reason = "its inputs and outputs do not share a leading batch axis of size >= 2"
        else:
            try:
                exp = _export(program, True)
                if not _rows_independent(exp, program, values):
                    reason = "its rows are not computed independently of each other"
            except Exception as exc:  # noqa: BLE001 - any failure means: not polymorphic
                reason = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        if reason is None:
            return SerializedProgram(bytes(exp.serialize()), True, tuple(exp.platforms))
        if batch_polymorphic:
            raise ExportError(
                f"job {program.job_name!r} cannot be exported with a free batch size: {reason}"
            )
    else:
        reason = "not asked for (batch_polymorphic=False)"
    exp = _export(program, False)
    return SerializedProgram(bytes(exp.serialize()), False, tuple(exp.platforms), reason)


def deserialize(data: bytes, where: str) -> export.Exported:
    try:
        return export.deserialize(bytearray(data))
    except Exception as exc:  # noqa: BLE001 - reported with the file's name
        raise ExportError(
            f"{where}: not a jax.export program this JAX can read ({type(exc).__name__}: {exc})"
        ) from None


def call(exp: export.Exported, variables: list[Any], inputs: list[Any]) -> list[np.ndarray]:
    with warnings.catch_warnings():
        # jax warns when a program lowered for several platforms runs on one of them
        warnings.simplefilter("ignore")
        outs = exp.call(variables, *inputs)
    return [np.asarray(o) for o in outs]


def _dims(aval: Any) -> tuple[Any, ...]:
    return tuple(d if isinstance(d, int) else None for d in aval.shape)  # None: symbolic


def _fits(dims: tuple[Any, ...], shape: tuple[int, ...], free_batch: bool) -> bool:
    if len(dims) != len(shape):
        return False
    return all(
        d == s or (d is None and free_batch and i == 0) for i, (d, s) in enumerate(zip(dims, shape))
    )


def check_program(exp: export.Exported, sig: Any, where: str, parse: bool = False) -> None:
    """The program takes the signature's variables and inputs and gives its outputs, with the
    declared shapes and dtypes (a program that disagrees is refused at load, not at a call).
    ``parse``: also parse its StableHLO now (for files no manifest CRC vouches for)."""
    if parse:
        try:
            exp.mlir_module()
        except Exception as exc:  # noqa: BLE001 - reported with the file's name
            raise ExportError(
                f"{where}: the program's StableHLO cannot be read ({type(exc).__name__}: "
                f"{str(exc).splitlines()[0] if str(exc) else ''})"
            ) from None
    n_vars = len(sig.variables)
    if len(exp.in_avals) != n_vars + len(sig.inputs) or len(exp.out_avals) != len(sig.outputs):
        raise ExportError(
            f"{where}: the program takes {len(exp.in_avals)} arguments and gives "
            f"{len(exp.out_avals)} outputs; the signature {sig.name!r} of graph {sig.graph!r} "
            f"declares {n_vars} variables + {len(sig.inputs)} inputs and {len(sig.outputs)} outputs"
        )
    pairs = [("input", s, a) for s, a in zip(sig.inputs, exp.in_avals[n_vars:])]
    pairs += [("output", s, a) for s, a in zip(sig.outputs, exp.out_avals)]
    for kind, spec, aval in pairs:
        dims = _dims(aval)
        if not _fits(dims, spec.shape, sig.batch_polymorphic) or np.dtype(aval.dtype) != np.dtype(
            spec.dtype
        ):
            shown = tuple("batch" if d is None else d for d in dims)
            raise ExportError(
                f"{where}: {kind} {spec.name!r} is declared {spec.shape} {spec.dtype} in "
                f"graph {sig.graph!r}, but the program's is {shown} {np.dtype(aval.dtype)}"
            )


def check_variables(exp: export.Exported, sig: Any, values: dict[str, Any], where: str) -> None:
    """The variables file holds each variable the program reads, at the program's shape."""
    missing = [n for n in sig.variables if n not in values]
    if missing:
        raise ExportError(f"{where}: variables {missing} are missing (graph {sig.graph!r})")
    for name, aval in zip(sig.variables, exp.in_avals):
        value = values[name]
        if tuple(value.shape) != _dims(aval) or np.dtype(value.dtype) != np.dtype(aval.dtype):
            raise ExportError(
                f"{where}: variable {name!r} is {tuple(value.shape)} {value.dtype}, but the "
                f"program of graph {sig.graph!r} reads it as {_dims(aval)} {np.dtype(aval.dtype)}"
            )
