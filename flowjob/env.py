"""``flow.env``: several machines (processes) training together through ``jax.distributed``,
and OneFlow's logging flags (``log_dir`` creates the directory; the others are ignored)."""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.env import (
    ctrl_port,
    current_resource,
    data_port,
    grpc_use_no_signal,
    init,
    init_bootstrap_confs,
    is_primary,
    log_dir,
    logbuflevel,
    logtostderr,
    machine,
    on_preemption,
    warn_once,
)

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
