"""The runtime: sessions, job functions, lowering to JAX and the completion thread."""

from . import _config as config
from ._config import FunctionConfig, function_config
from ._delivery import LocalBlob
from ._eager import eager_execution_enabled, enable_eager_execution
from ._job_function import JobFunction, function, global_function
from ._results import LazyFutureRemoteBlobs
from ._session import Session, clear_default_session, default_session, sync_default_session

__all__ = [
    "config", "FunctionConfig", "function_config", "eager_execution_enabled",
    "enable_eager_execution", "JobFunction", "function", "global_function",
    "LazyFutureRemoteBlobs", "LocalBlob", "Session", "clear_default_session", "default_session",
    "sync_default_session",
]
