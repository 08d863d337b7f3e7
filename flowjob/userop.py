"""OneFlow's op builders (``flow.user_op_builder`` and kin) and user ops with Python kernels.

The builders look OneFlow's registered op type names up in a table (argument names,
attributes) and record the op through flowjob's own op functions; an unknown type raises
naming it and listing the known ones. ``register_python_op`` adds an op type whose kernels are
Python: ``jax.numpy`` kernels compile into the job, NumPy kernels run on the host through
``jax.pure_callback`` (see ``_python_op``). ``custom_op_module`` is OneFlow v0.4's way to the
same: a folder with the op registrations in C++ (read, not compiled: ``_cpp_def``) and NumPy
kernels. OneFlow's C++ op libraries cannot load: ``load_library`` raises, naming both.
"""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.userop import (
    BuiltinOp,
    BuiltinOpBuilder,
    CppDefError,
    CppDefs,
    CustomOpModule,
    CustomOpModuleError,
    KernelKind,
    Module,
    NativeBuildError,
    OpCall,
    OpLibraryError,
    OpSpec,
    PythonKernelError,
    UnknownOpTypeError,
    UserOp,
    UserOpConfBuilder,
    UserOpModuleBuilder,
    builtin_op,
    consistent_user_op_builder,
    consistent_user_op_module_builder,
    custom_op_module,
    find_or_create_module,
    known_op_types,
    load_library,
    load_library_now,
    lookup,
    read_cpp_defs,
    register,
    register_python_op,
    user_op_builder,
    user_op_module_builder,
)

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
