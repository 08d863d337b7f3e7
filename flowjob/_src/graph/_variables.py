"""Variables: defined by name, shared by every job of the session, initialised once."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from .. import _dtypes
from .._device_values import prng_key, staging, to_device
from ..errors import JobDefinitionError, describe_frame, user_frame
from . import _scope
from ._blob import Blob, OpKind
from ._drawing import Values
from ._graph import current_context


@dataclass
class VariableDef:
    name: str
    shape: tuple[int, ...]
    dtype: _dtypes.DType
    initializer: Any
    trainable: bool
    regularizer: Any = None
    distribute: Any = None
    system: bool = False  # optimizer slots and TrainStep counters


class VariableStore:
    """The session's variables: definitions plus current values (``jax.Array``)."""

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.defs: dict[str, VariableDef] = {}
        self.values = Values()  # an initial value may still be drawing: see _drawing.py
        # Values loaded before their variable exists (eager jobs define variables when they
        # first run): a variable defined later starts from its value instead of its
        # initializer, as OneFlow's eager snapshot loading does.
        self.pending: dict[str, np.ndarray] = {}

    def define(self, vdef: VariableDef, random_seed: int | None = None) -> VariableDef:
        old = self.defs.get(vdef.name)
        if old is not None:
            if old.shape != vdef.shape or old.dtype != vdef.dtype:
                raise JobDefinitionError(
                    f"variable {vdef.name!r} is already defined with shape {old.shape} and "
                    f"dtype {old.dtype.name}; redefined with shape {vdef.shape} and dtype "
                    f"{vdef.dtype.name} ({describe_frame(user_frame())})"
                )
            return old
        seed = (
            random_seed if random_seed is not None else (self.seed ^ zlib.crc32(vdef.name.encode()))
        )
        if vdef.name in self.pending:
            value = self._loaded(vdef.name, vdef.shape, vdef.dtype)
            self.values[vdef.name] = _initial(vdef, value)
        elif staging():  # the initializer's values belong to the program being traced
            self.values[vdef.name] = _initial(vdef, _drawn(vdef, seed))
        else:  # drawn while the job compiles
            spec = jax.ShapeDtypeStruct(
                vdef.shape, jax.dtypes.canonicalize_dtype(vdef.dtype.np_dtype)
            )
            self.values.later(
                {vdef.name: spec}, lambda: {vdef.name: _initial(vdef, _drawn(vdef, seed))}
            )
        self.defs[vdef.name] = vdef
        return vdef

    def define_system(self, name: str, value: np.ndarray | jax.Array) -> None:
        """Adds a variable owned by the runtime (optimizer slot, TrainStep) if missing."""
        if name in self.defs:
            return
        arr = to_device(value)
        if name in self.pending:
            loaded = self._loaded(name, tuple(arr.shape), _dtypes.as_dtype(arr.dtype))
            arr = to_device(loaded)
        self.defs[name] = VariableDef(
            name, tuple(arr.shape), _dtypes.as_dtype(arr.dtype), None, trainable=False, system=True
        )
        self.values[name] = arr

    def define_system_later(
        self, specs: dict[str, Any], compute: Callable[[], dict[str, Any]]
    ) -> None:
        """:meth:`define_system` for each name of ``specs`` (name -> ``ShapeDtypeStruct``)
        not yet defined, with its value from ``compute()``, run on the drawing thread (after
        the initial values it may read); a value loaded for a name replaces it."""
        missing = [n for n in specs if n not in self.defs]
        drawn = {n: specs[n] for n in missing if n not in self.pending}
        if drawn and staging():  # the values belong to the program being traced
            values = compute()
            for name in missing:
                self.define_system(name, values[name])
            return
        for name in missing:
            if name not in drawn:  # the loaded value replaces these zeros
                self.define_system(name, np.zeros(specs[name].shape, specs[name].dtype))
        if drawn:
            for name, spec in drawn.items():
                dtype = _dtypes.as_dtype(spec.dtype)
                self.defs[name] = VariableDef(
                    name, tuple(spec.shape), dtype, None, trainable=False, system=True
                )
            self.values.later(
                drawn, lambda: {n: to_device(v) for n, v in compute().items() if n in drawn}
            )

    def _loaded(self, name: str, shape: tuple[int, ...], dtype: _dtypes.DType) -> np.ndarray:
        """The value loaded for ``name`` before it existed, checked against its definition."""
        value = self.pending.pop(name)
        if value.shape != shape or value.dtype != dtype.np_dtype:
            raise JobDefinitionError(
                f"variable {name!r} is defined with shape {shape} and dtype {dtype.name}, but "
                f"the value loaded for it before it existed (flow.load_variables) has shape "
                f"{value.shape} and dtype {value.dtype} ({describe_frame(user_frame())})"
            )
        return value


def _drawn(vdef: VariableDef, seed: int) -> Any:
    return vdef.initializer(prng_key(seed), vdef.shape, vdef.dtype.np_dtype)


def _initial(vdef: VariableDef, value: Any) -> jax.Array:
    """``value`` on the device, checked against the definition."""
    value = to_device(value, vdef.dtype.np_dtype)
    if value.shape != vdef.shape:
        raise JobDefinitionError(
            f"initializer of variable {vdef.name!r} returned shape {value.shape}, "
            f"expected {vdef.shape}"
        )
    return value


def _free_argument_name(graph, name: str) -> None:
    """OneFlow names job argument ops ``Input_<n>``, so a variable may take an argument's
    name: the argument's op is renamed ``Input_<n>`` here."""
    for op in graph.ops:
        if op.kind is OpKind.INPUT and op.name == name:
            n = 0
            while f"Input_{n}" in graph._names:
                n += 1
            graph._names.discard(name)
            graph._names.add(f"Input_{n}")
            op.name = f"Input_{n}"
            return


def _variable_blob(graph, vdef: VariableDef, trainable: bool) -> Blob:
    """The job's variable op. ``trainable`` is this job's own: as in OneFlow, each job's
    variable op carries the flag of that job's first request (a GAN's generator job trains G
    and reads D frozen, the discriminator job the other way round)."""
    if vdef.name in graph.variables:
        return graph.variables[vdef.name]
    _free_argument_name(graph, vdef.name)
    conf = getattr(vdef.initializer, "conf", None)
    attrs = {
        "shape": vdef.shape,
        "dtype": vdef.dtype.name,
        "trainable": trainable,
        "initializer": conf,
    }
    # Variables keep their full (namespaced) names as op names: no second prefix.
    op = graph.add_op(
        name=vdef.name,
        op_type="variable",
        kind=OpKind.VARIABLE,
        lowering=None,
        inputs=[],
        attrs=attrs,
        outputs=[(vdef.shape, vdef.dtype, False)],
        full_name=True,
    )
    graph.variables[vdef.name] = op.outputs[0]
    return op.outputs[0]


# Filled by flowjob._src.ops at import time: what a job body sees of a variable it asks for (SSP
# training hands out a stale copy, ops/_ssp.py); the variable blob itself when none applies.
VARIABLE_VIEWS: list[Callable[[Blob], Blob]] = []


def _view(variable: Blob) -> Blob:
    for view in VARIABLE_VIEWS:
        variable = view(variable)
    return variable


def get_variable(
    name: str,
    shape: tuple[int, ...] | list[int] | None = None,
    dtype=None,
    initializer: Any = None,
    regularizer: Any = None,
    trainable: bool | None = None,
    model_name: str | None = None,
    random_seed: int | None = None,
    parallel_distribution: Any = None,
    distribute: Any = None,
    reuse: bool = True,
) -> Blob:
    """Returns the variable ``<namespace>-<name>``, creating and initialising it if new.

    Variables are shared by name across all jobs; a second definition must agree on shape and
    dtype. Within one job, ``reuse=False`` makes a second request for the name an error.
    ``parallel_distribution`` (OneFlow's 2-D SBP, e.g. ``["S(0)", "B"]``): the variable is
    split along axis k when every entry says ``S(k)``, else replicated (state lives on a 1-D
    mesh); its value is the same either way.
    """
    ctx = current_context()
    graph = ctx.graph
    full = "-".join((*_scope.current_namespace(), name))
    if full in graph.variables:
        if not reuse:
            raise JobDefinitionError(
                f"variable {full!r} already exists, getting the same variable is not allowed "
                f"when param reuse is False ({describe_frame(user_frame())})"
            )
        existing = graph.variables[full]
        if shape is not None and tuple(shape) != existing.shape:
            raise JobDefinitionError(
                f"variable {full!r} has shape {existing.shape}, requested {tuple(shape)}"
            )
        return _view(existing)
    known = ctx.variables.defs.get(full)
    if shape is None:
        if known is None:
            raise JobDefinitionError(f"get_variable({full!r}) needs a shape the first time")
        shape = known.shape
    if dtype is None:
        dtype = getattr(graph.config, "data_type", None) or _dtypes.float32
    dtype = _dtypes.as_dtype(dtype)
    if initializer is None:
        initializer = getattr(graph.config, "initializer", None)
        if initializer is None:
            raise JobDefinitionError(
                f"variable {full!r} has no initializer and the job's function_config sets no "
                "default_initializer_conf; pass initializer=flow.zeros_initializer() or similar "
                f"({describe_frame(user_frame())})"
            )
    trainable = True if trainable is None else bool(trainable)
    if isinstance(parallel_distribution, str):  # OneFlow's "S(0),B" form
        parallel_distribution = parallel_distribution.split(",")
    # OneFlow turned None into [] (no distribution given): both leave the variable as it is
    if parallel_distribution is not None and len(parallel_distribution) > 0:
        nd_sbp = _scope.parse_parallel_distribution(
            parallel_distribution, len(shape), f"get_variable({full!r})"
        )
        if distribute is None and len(set(nd_sbp)) == 1 and nd_sbp[0] is not None:
            distribute = nd_sbp[0] if nd_sbp[0].kind is _scope.Sbp.SPLIT else None
    vdef = VariableDef(
        full,
        tuple(int(d) for d in shape),
        dtype,
        initializer,
        trainable=trainable,
        regularizer=regularizer,
        distribute=distribute,
    )
    vdef = ctx.variables.define(vdef, random_seed)
    return _view(_variable_blob(graph, vdef, trainable))
