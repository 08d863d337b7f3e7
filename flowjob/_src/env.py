"""``flow.env``: several machines (processes) training together through ``jax.distributed``,
and OneFlow's logging flags (``log_dir`` creates the directory; the others are ignored)."""

from ._deprecation import warn_once
from .processes import ctrl_port, init, init_bootstrap_confs, is_primary, machine, on_preemption
from .runtime import current_resource, log_dir, logbuflevel, logtostderr

__all__ = [
    "ctrl_port",
    "current_resource",
    "data_port",
    "grpc_use_no_signal",
    "init",
    "init_bootstrap_confs",
    "is_primary",
    "machine",
    "on_preemption",
    "log_dir",
    "logbuflevel",
    "logtostderr",
]


def data_port(val: int) -> None:
    """OneFlow's port for tensor traffic between machines. Checked and ignored:
    ``jax.distributed`` moves data through the connections it sets up from ``ctrl_port``."""
    if isinstance(val, bool) or not isinstance(val, int) or not 0 < val < 65536:
        raise TypeError(f"flow.env.data_port takes a port number (1-65535), got {val!r}")


def grpc_use_no_signal(val: bool = True) -> None:
    """Deprecated in OneFlow v0.4 already; accepted and ignored."""
    warn_once("grpc_use_no_signal", "oneflow.env.grpc_use_no_signal is deprecated and does nothing")
    if not isinstance(val, bool):
        raise TypeError(f"flow.env.grpc_use_no_signal takes a bool, got {val!r}")
