"""``flow.experimental.custom_op_module``: OneFlow v0.4's Python-kernel custom ops.

A module folder ``<path>/<name>/`` holds ``<name>_py_api.py`` (the Python functions that build
the ops with ``user_op_builder``), ``<name>_cpp_def.cpp`` (the ops' registrations, which
OneFlow compiled and flowjob reads: ``_cpp_def``) and ``<name>_py_kernel.py``, whose
``forward(args)`` and ``backward(args)`` are the NumPy kernels of the ops ``<name>_forward``
and ``<name>_backward`` (OneFlow's rule: it registered Python kernels under exactly those two
op types). Each kernel gets the list of its op's inputs in registration order and returns one
array or a list of them. The kernels run on the host through ``jax.pure_callback`` inside the
compiled step; a ``REGISTER_USER_OP_GRAD`` block makes the backward op the forward op's
gradient.

Unlike OneFlow, nothing is copied into the working directory and nothing is compiled.
"""

from __future__ import annotations

import importlib.util
import types
from pathlib import Path
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import NativeBuildError, OpError
from ..graph import Blob, KernelSite, apply_host_op
from ._cpp_def import CppDefs, GradDef, OpDef, Source, read_cpp_defs
from ._python_op import PythonKernelError, host_kernel
from ._registry import OpCall, OpSpec, register

_SUFFIXES = {"_forward": "forward", "_backward": "backward"}


class CustomOpModuleError(OpError):
    """A custom op module's files are missing, or its steps run out of order."""


def _load_module(name: str, path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _KernelOp:
    """One op of the module: its definition, its kernel and, if registered, its gradient."""

    def __init__(
        self, defs: CppDefs, op: OpDef, kernel: Callable[[list], Any] | None, ops: dict
    ) -> None:
        self.defs, self.op, self.kernel, self.ops = defs, op, kernel, ops
        self.grad: GradDef | None = defs.grads.get(op.op_type)

    def where(self) -> str:
        return f"op {self.op.op_type!r} ({self.defs.path}:{self.op.line})"

    def specs(self, xs: tuple) -> tuple[jax.ShapeDtypeStruct, ...]:
        """Output shapes and dtypes: the copies the definition spells out, else a trial run
        of the kernel on zeros (what OneFlow's inference function would have computed)."""
        given = {a: x for a, x in zip(self.op.inputs, xs)}
        known = [
            (given.get(self.op.shape_from.get(o)), given.get(self.op.dtype_from.get(o)))
            for o in self.op.outputs
        ]
        if all(s is not None and d is not None for s, d in known):
            return tuple(jax.ShapeDtypeStruct(s.shape, d.dtype) for s, d in known)
        try:
            tried = self.run_kernel([np.zeros(x.shape, x.dtype) for x in xs])
        except Exception as exc:
            unread = ", ".join(f"{self.defs.path}:{n}" for n in self.op.unread) or "none"
            raise OpError(
                f"{self.where()}: its output shapes/dtypes are not plain copies of an input "
                f"(unread inference statements: {unread}) and a trial run of its kernel on "
                f"zeros failed: {exc!r}"
            ) from exc
        return tuple(
            jax.ShapeDtypeStruct(
                s.shape if s is not None else t.shape, d.dtype if d is not None else t.dtype
            )
            for (s, d), t in zip(known, tried)
        )

    def run_kernel(self, arrays: list[np.ndarray]) -> list[np.ndarray]:
        if self.kernel is None:
            raise OpError(
                f"{self.where()} has no Python kernel: py_kernel() provides forward/backward "
                f"for the ops <module>_forward and <module>_backward only"
            )
        out = self.kernel(list(arrays))
        return [np.asarray(v) for v in (out if isinstance(out, (list, tuple)) else [out])]

    def lower(self, site: KernelSite, *xs: jax.Array) -> tuple[jax.Array, ...]:
        """``site``: the op the user built (its kernels' errors name it, and this kernel's
        definition, ``where``)."""
        outs = self.specs(xs)
        host = host_kernel(
            f"the Python kernel of {self.where()}",
            site,
            lambda *arrays: tuple(self.run_kernel(list(arrays))),
            outs,
            self.op.outputs,
            {},
        )

        @jax.custom_vjp
        def run(*xs):
            return tuple(jax.pure_callback(host, outs, *xs))

        def run_fwd(*xs):
            ys = run(*xs)
            return ys, (xs, ys)

        def run_bwd(saved, grads):
            return self.gradients(site, *saved, grads)

        run.defvjp(run_fwd, run_bwd)
        return run(*xs)

    def gradients(
        self, site: KernelSite, xs: tuple, ys: tuple, dys: tuple
    ) -> tuple[jax.Array, ...]:
        if self.grad is None:
            raise OpError(
                f"{self.where()} has no REGISTER_USER_OP_GRAD in {self.defs.path}, so no "
                "gradient flows through it"
            )
        values = {
            **{(Source.INPUT, a): x for a, x in zip(self.op.inputs, xs)},
            **{(Source.OUTPUT, a): y for a, y in zip(self.op.outputs, ys)},
            **{(Source.OUTPUT_GRAD, a): g for a, g in zip(self.op.outputs, dys)},
        }
        backward = self.ops[self.grad.backward_type]
        missing = [a for a in backward.op.inputs if a not in self.grad.binds]
        if missing:
            raise OpError(
                f"REGISTER_USER_OP_GRAD({self.op.op_type!r}) ({self.defs.path}:{self.grad.line}) "
                f"binds no value to input(s) {missing} of {backward.op.op_type!r}"
            )
        results = backward.lower(site, *(values[self.grad.binds[a]] for a in backward.op.inputs))
        by_name = dict(zip(backward.op.outputs, results))
        # An input the block binds no gradient to gets none, as in OneFlow: zeros.
        return tuple(
            by_name[self.grad.input_grads[a]] if a in self.grad.input_grads else jnp.zeros_like(x)
            for a, x in zip(self.op.inputs, xs)
        )

    def spec(self) -> OpSpec:
        def make_lowering(site: KernelSite):
            def lowering(*xs, **_attrs):
                # OneFlow hands a Python kernel its inputs only, never the op's attributes.
                ys = self.lower(site, *xs)
                return ys if len(ys) > 1 else ys[0]

            return lowering

        def build(c: OpCall) -> dict[str, list[Blob]]:
            out = apply_host_op(
                self.op.op_type,
                make_lowering,
                [c.input(a) for a in self.op.inputs],
                c.attrs,
                c.name,
            )
            out = out if isinstance(out, tuple) else (out,)
            return {a: [b] for a, b in zip(self.op.outputs, out)}

        return OpSpec(
            self.op.op_type,
            tuple(self.op.inputs),
            tuple(self.op.outputs),
            build,
            dict(self.op.attrs),
        )


class CustomOpModule:
    """``flow.experimental.custom_op_module(name, path)``: chain ``.py_api()``,
    ``.cpp_def()``, ``.py_kernel()`` and ``.build_load()``; then ``.api.<function>``."""

    def __init__(self, op_module_name: str, module_path: str = "") -> None:
        self.op_module_name = op_module_name
        self.folder = Path(module_path or ".").resolve() / op_module_name
        self.api: types.ModuleType | None = None
        self._defs: CppDefs | None = None
        self._kernels: types.ModuleType | None = None

    def _file(self, suffix: str) -> Path:
        path = self.folder / f"{self.op_module_name}_{suffix}"
        if not path.is_file():
            raise CustomOpModuleError(
                f"custom op module {self.op_module_name!r}: {path} does not exist (a module "
                f"folder holds {self.op_module_name}_py_api.py, _cpp_def.cpp and _py_kernel.py)"
            )
        return path

    def py_api(self) -> CustomOpModule:
        self.api = _load_module(self.op_module_name, self._file("py_api.py"))
        return self

    def cpp_def(self) -> CustomOpModule:
        self._defs = read_cpp_defs(self._file("cpp_def.cpp"))
        return self

    def py_kernel(self) -> CustomOpModule:
        kernels = _load_module(self.op_module_name, self._file("py_kernel.py"))
        if not callable(getattr(kernels, "forward", None)):
            raise CustomOpModuleError(
                f"{self._file('py_kernel.py')} defines no forward(args) function"
            )
        self._kernels = kernels
        return self

    def cpp_kernel(self) -> CustomOpModule:
        raise NativeBuildError(
            f"custom op module {self.op_module_name!r}: cannot compile the C++ kernel "
            f"{self.folder / (self.op_module_name + '_cpp_kernel.cpp')}; flowjob runs Python "
            "kernels only (py_kernel())"
        )

    gpu_kernel = cpp_kernel

    def build_load(self) -> None:
        """Registers the module's ops for ``user_op_builder`` (OneFlow linked and loaded a
        shared library here)."""
        if self._defs is None:
            raise CustomOpModuleError(
                f"custom op module {self.op_module_name!r}: call .cpp_def() before .build_load()"
            )
        ops: dict[str, _KernelOp] = {}
        for op_type, op in self._defs.ops.items():
            kernel = None
            for suffix, fn in _SUFFIXES.items():
                if self._kernels is not None and op_type == self.op_module_name + suffix:
                    kernel = getattr(self._kernels, fn, None)
            ops[op_type] = _KernelOp(self._defs, op, kernel, ops)
        for op in ops.values():
            register(op.spec(), replace=True)


def custom_op_module(op_module_name: str, module_path: str = "") -> CustomOpModule:
    """OneFlow v0.4's ``flow.experimental.custom_op_module``."""
    return CustomOpModule(op_module_name, module_path)


__all__ = ["CustomOpModule", "CustomOpModuleError", "PythonKernelError", "custom_op_module"]
