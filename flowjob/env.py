"""``flow.env``: several machines (processes) training together through ``jax.distributed``,
and OneFlow's logging flags (``log_dir`` creates the directory; the others are ignored)."""

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
    warn_once,
)
