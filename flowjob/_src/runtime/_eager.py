"""``flow.enable_eager_execution`` / ``flow.eager_execution_enabled``: the execution mode.

OneFlow v0.4 keeps the mode in its environment, not in the session: it outlives
``flow.clear_default_session()``, and each job function takes the mode in force when it is
defined. Switching is refused inside a job body and once the default session has a lazy job
(OneFlow's ``in_normal_mode & ~any_global_function_defined``); eager jobs do not count, as
OneFlow never adds them to the session. How an eager call runs: ``_eager_call.py``.
"""

from __future__ import annotations

from ..errors import ConfigError
from ..graph import current_graph, in_job

_enabled = False


def eager_execution_enabled() -> bool:
    """Whether job functions defined from now on run eagerly (OneFlow's default: ``False``)."""
    return _enabled


def enable_eager_execution(val: bool = True) -> None:
    """Eager (``True``) or lazy (``False``) execution for the job functions defined next.

    Eager: the body runs on every call, op by op, and blobs have values (``blob.numpy()``);
    lazy: the body is traced once and compiled. Call it before defining jobs.
    """
    global _enabled
    if in_job():
        raise ConfigError(
            f"flow.enable_eager_execution({val!r}) was called inside the body of job "
            f"{current_graph().name!r}; as in OneFlow, the execution mode is set outside job "
            "functions, before they are defined"
        )
    from ._session import lazy_job_names  # here: _session imports this module

    lazy = lazy_job_names()
    if lazy:
        shown = ", ".join(repr(n) for n in lazy)
        raise ConfigError(
            f"flow.enable_eager_execution({val!r}) after the lazy job(s) {shown} were defined "
            "in the default session: as in OneFlow, the execution mode is chosen before any "
            "global function is defined; call it first, or call "
            "flow.clear_default_session() before switching"
        )
    _enabled = bool(val)
