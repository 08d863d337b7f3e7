"""``flow.sysconfig``: what this build has. flowjob is pure Python on JAX, not OneFlow's C++
build, so the feature probes answer for flowjob and the build-path queries raise
``NativeBuildError``: there are no OneFlow headers or libraries to compile custom ops against.
"""

from __future__ import annotations

from .errors import NativeBuildError

__all__ = [
    "get_compile_flags",
    "get_include",
    "get_lib",
    "get_link_flags",
    "has_rpc_backend_grpc",
    "has_rpc_backend_local",
    "with_cuda",
    "with_xla",
]


def _no_native(api: str) -> NativeBuildError:
    return NativeBuildError(
        f"flow.sysconfig.{api}(): flowjob has no C++ build (no OneFlow headers or "
        "libraries to build custom ops against); write the op as a JAX lowering instead"
    )


def get_include() -> str:
    """Raises ``NativeBuildError``: there is no OneFlow include directory."""
    raise _no_native("get_include")


def get_lib() -> str:
    """Raises ``NativeBuildError``: there is no OneFlow shared library."""
    raise _no_native("get_lib")


def get_compile_flags() -> list[str]:
    """Raises ``NativeBuildError`` (see ``get_include``)."""
    raise _no_native("get_compile_flags")


def get_link_flags() -> list[str]:
    """Raises ``NativeBuildError`` (see ``get_lib``)."""
    raise _no_native("get_link_flags")


def with_cuda() -> bool:
    """False: flowjob has no CUDA kernels of its own (JAX picks the device)."""
    return False


def with_xla() -> bool:
    """True: every job is compiled by XLA (``use_xla_jit`` changes nothing)."""
    return True


def has_rpc_backend_grpc() -> bool:
    """True: several machines talk through ``jax.distributed``'s gRPC coordinator."""
    return True


def has_rpc_backend_local() -> bool:
    """True: one process needs no RPC at all."""
    return True
