"""The runtime: sessions, job functions, lowering to JAX and the completion thread."""

from . import _config as config
from ._bootstrap import (
    BootstrapConf,
    delete_worker_by_bootstrap,
    delete_worker_of_multi_process,
    init_bootstrap_confs,
)
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
from ._distributed import ctrl_port, first_process_does, is_primary, machine
from ._distributed import init as init_distributed
from ._eager import eager_execution_enabled, enable_eager_execution
from ._eager_op import HostValue, run_eagerly
from ._job_function import JobFunction, global_function
from ._local_blob import LocalBlob
from ._op_program import NotAProgram, OpProgram, op_program
from ._resource import Resource, current_resource
from ._results import LazyFutureRemoteBlobs
from ._session import Session, clear_default_session, default_session, sync_default_session
from ._stop import on_preemption
from ._tuning import collective_boxing, config_flags, log_dir, logbuflevel, logtostderr

__all__ = [
    "config",
    "FunctionConfig",
    "function_config",
    "eager_execution_enabled",
    "enable_eager_execution",
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
    "ctrl_port",
    "is_primary",
    "first_process_does",
    "on_preemption",
    "machine",
    "init_distributed",
    "collective_boxing",
    "config_flags",
    "log_dir",
    "logbuflevel",
    "logtostderr",
    "BootstrapConf",
    "init_bootstrap_confs",
    "delete_worker_by_bootstrap",
    "delete_worker_of_multi_process",
    "Resource",
    "current_resource",
]
