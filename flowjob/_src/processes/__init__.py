"""Several processes of one job: joining them through ``jax.distributed``, watching each
other (a failed, silent or departed rank is named to every rank), stopping together on
SIGTERM, and agreeing on inputs and on work one rank does for all.

The runtime imports these public names only; nothing here imports the runtime.
"""

import os as _os

from . import _distributed, _early
from ._bootstrap import (
    BootstrapConf,
    delete_worker_by_bootstrap,
    delete_worker_of_multi_process,
    init_bootstrap_confs,
)
from ._distributed import ctrl_port, first_process_does, init, is_primary, machine, several
from ._early import program_exits
from ._stop import on_preemption, stop_guard

# A rank of several that fails before it joined the others tells them at once
# (processes/_early.py): its hook goes in as soon as this process is known to be one.
_distributed.on_several.append(_early.install)
if _os.environ.get("FLOWJOB_COORDINATOR"):
    _early.install()

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
    "program_exits",
    "several",
    "stop_guard",
]
