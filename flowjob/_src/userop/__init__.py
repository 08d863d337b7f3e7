"""OneFlow's op builders (``flow.user_op_builder`` and kin) and user ops with Python kernels.

The builders look OneFlow's registered op type names up in a table (argument names,
attributes) and record the op through flowjob's own op functions; an unknown type raises
naming it and listing the known ones. ``register_python_op`` adds an op type whose kernels are
Python: ``jax.numpy`` kernels compile into the job, NumPy kernels run on the host through
``jax.pure_callback`` (see ``_python_op``). ``custom_op_module`` is OneFlow v0.4's way to the
same: a folder with the op registrations in C++ (read, not compiled: ``_cpp_def``) and NumPy
kernels. OneFlow's C++ op libraries cannot load: ``load_library`` raises, naming both.
"""

from __future__ import annotations

from ..errors import NativeBuildError
from . import _builtin_math, _builtin_nn, _builtin_table, _test_ops  # noqa: F401 - fill the op table
from ._builder import (
    BuiltinOp,
    BuiltinOpBuilder,
    UserOp,
    UserOpConfBuilder,
    UserOpModuleBuilder,
)
from ._cpp_def import CppDefError, CppDefs, read_cpp_defs
from ._custom_module import CustomOpModule, CustomOpModuleError, custom_op_module
from ._module import Module, find_or_create_module
from ._python_op import KernelKind, PythonKernelError, register_python_op
from ._registry import OpCall, OpSpec, UnknownOpTypeError, known_op_types, lookup, register


class OpLibraryError(NativeBuildError, OSError):
    """A C++ op library (OneFlow's ``.so`` custom ops) was asked to load."""


def user_op_builder(op_name: str) -> UserOpConfBuilder:
    """``flow.user_op_builder(name).Op(type).Input(...).Output(...).Attr(...).Build()``."""
    return UserOpConfBuilder(op_name)


def consistent_user_op_builder(op_name: str) -> UserOpConfBuilder:
    """Like :func:`user_op_builder`: flowjob's blobs are always consistent (global) views."""
    return UserOpConfBuilder(op_name)


def user_op_module_builder(op_type_name: str) -> UserOpModuleBuilder:
    """A builder of ``op_type_name`` kept across calls (``OpName``/``Input`` per call)."""
    return UserOpModuleBuilder(op_type_name)


consistent_user_op_module_builder = user_op_module_builder


def builtin_op(op_type_name: str, op_name: str | None = None) -> BuiltinOpBuilder:
    """``flow.builtin_op(type).Input("in").Output("out").Attr(...).Build()(blobs...)``."""
    return BuiltinOpBuilder(op_type_name, op_name)


def load_library(val: str) -> None:
    """OneFlow's C++ custom op libraries cannot load into flowjob: always raises."""
    raise OpLibraryError(
        f"cannot load the op library {val!r}: flowjob runs ops as JAX code and cannot load "
        "OneFlow's C++ op libraries; write the op's kernels in Python (NumPy or jax.numpy) and "
        "register them with flow.register_python_op, or keep the op's REGISTER_USER_OP file "
        "and put NumPy kernels beside it for flow.experimental.custom_op_module(name, path)"
        ".py_api().cpp_def().py_kernel().build_load() (README: Migrating from OneFlow, user ops)"
    )


load_library_now = load_library

__all__ = [
    "BuiltinOp",
    "CppDefError",
    "CppDefs",
    "CustomOpModule",
    "CustomOpModuleError",
    "BuiltinOpBuilder",
    "KernelKind",
    "Module",
    "OpCall",
    "OpLibraryError",
    "OpSpec",
    "PythonKernelError",
    "UnknownOpTypeError",
    "UserOp",
    "UserOpConfBuilder",
    "UserOpModuleBuilder",
    "builtin_op",
    "consistent_user_op_builder",
    "consistent_user_op_module_builder",
    "custom_op_module",
    "find_or_create_module",
    "known_op_types",
    "load_library",
    "load_library_now",
    "lookup",
    "read_cpp_defs",
    "register",
    "register_python_op",
    "user_op_builder",
    "user_op_module_builder",
]
