"""``flow.env``: several machines (processes) training together through ``jax.distributed``,
and OneFlow's logging flags (``log_dir`` creates the directory; the others are ignored)."""

from .runtime import ctrl_port, is_primary, log_dir, logbuflevel, logtostderr, machine
from .runtime import init_distributed as init

__all__ = ["ctrl_port", "init", "is_primary", "machine", "log_dir", "logbuflevel",
           "logtostderr"]
