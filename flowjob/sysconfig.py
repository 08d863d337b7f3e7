"""``flow.sysconfig``: what this build has. flowjob is pure Python on JAX, not OneFlow's C++
build, so the feature probes answer for flowjob and the build-path queries raise
``NativeBuildError``: there are no OneFlow headers or libraries to compile custom ops against.
"""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.sysconfig import (
    NativeBuildError,
    get_compile_flags,
    get_include,
    get_lib,
    get_link_flags,
    has_rpc_backend_grpc,
    has_rpc_backend_local,
    with_cuda,
    with_xla,
)

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
