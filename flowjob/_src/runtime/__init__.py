"""The runtime: sessions, job functions, lowering to JAX and the completion thread."""

from . import _config as config
from ._config import (
    FunctionConfig,
    compilation_cache,
    compilation_cache_dir,
    cpu_device_num,
    enable_debug_mode,
    enable_legacy_model_io,
    enable_model_io_v2,
    function_config,
    gpu_device_num,
    legacy_model_io_enabled,
    machine_num,
    seed,
)
from ._eager import eager_execution_enabled, enable_eager_execution
from ._eager_op import HostValue, run_eagerly
from ._job_function import JobFunction, global_function
from ._local_blob import LocalBlob
from ._op_program import NotAProgram, OpProgram, op_program
from ._resource import Resource, current_resource
from ._results import LazyFutureRemoteBlobs
from ._session import Session, clear_default_session, default_session, sync_default_session
from ._tuning import collective_boxing, config_flags, log_dir, logbuflevel, logtostderr
from ._typing_check import enable_typing_check

__all__ = [
    "config",
    "FunctionConfig",
    "function_config",
    "eager_execution_enabled",
    "enable_eager_execution",
    "enable_typing_check",
    "run_eagerly",
    "HostValue",
    "NotAProgram",
    "OpProgram",
    "op_program",
    "JobFunction",
    "global_function",
    "LazyFutureRemoteBlobs",
    "LocalBlob",
    "Session",
    "clear_default_session",
    "default_session",
    "sync_default_session",
    "compilation_cache",
    "compilation_cache_dir",
    "cpu_device_num",
    "enable_debug_mode",
    "enable_legacy_model_io",
    "enable_model_io_v2",
    "gpu_device_num",
    "legacy_model_io_enabled",
    "machine_num",
    "seed",
    "collective_boxing",
    "config_flags",
    "log_dir",
    "logbuflevel",
    "logtostderr",
    "Resource",
    "current_resource",
]
