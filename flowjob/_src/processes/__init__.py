"""Several processes of one job: joining them through ``jax.distributed``, watching each
other (a failed, silent or departed rank is named to every rank), stopping together on
SIGTERM, and agreeing on inputs and on work one rank does for all.

The runtime imports these public names only; nothing here imports the runtime.
"""

from ._bootstrap import (
    BootstrapConf,
    delete_worker_by_bootstrap,
    delete_worker_of_multi_process,
    init_bootstrap_confs,
)
from ._distributed import ctrl_port, first_process_does, init, is_primary, machine
from ._stop import on_preemption, stop_guard

__all__ = [
    "BootstrapConf",
    "ctrl_port",
    "delete_worker_by_bootstrap",
    "delete_worker_of_multi_process",
    "first_process_does",
    "init",
    "init_bootstrap_confs",
    "is_primary",
    "machine",
    "on_preemption",
    "stop_guard",
]
