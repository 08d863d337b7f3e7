"""``flow.env``: several machines (processes) training together through ``jax.distributed``,
and OneFlow's logging flags (``log_dir`` creates the directory; the others are ignored)."""

from .runtime._distributed import ctrl_port, init, is_primary, machine
from .runtime._tuning import log_dir, logbuflevel, logtostderr

__all__ = ["ctrl_port", "init", "is_primary", "machine", "log_dir", "logbuflevel",
           "logtostderr"]
