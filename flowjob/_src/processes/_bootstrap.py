"""``flow.env.init_bootstrap_confs``: OneFlow's multi-node bootstrap onto ``jax.distributed``.

OneFlow's test harness used it to name the nodes (the first is the master) and the master's
port. flowjob runs one process per machine, all devices of a machine in that process; the
nodes become ``flow.env.machine`` entries and ``master_port`` the coordinator's ``ctrl_port``
(processes/_distributed.py starts ``jax.distributed`` from them with the first job).
"""

from __future__ import annotations

import dataclasses
import os
import shutil

from .._deprecation import warn_once
from .._devices import backends_started
from ..errors import ConfigError
from . import _distributed


@dataclasses.dataclass(frozen=True)
class Address:
    host: str
    port: int


@dataclasses.dataclass(frozen=True)
class BootstrapConf:
    """One rank's entry, with the field names of OneFlow's ``BootstrapConf`` proto."""

    master_addr: Address
    rank: int
    world_size: int
    host: str
    num_process_per_node: int = 1
    ctrl_port: int | None = None
    node_size: int | None = None


_confs: list[BootstrapConf] = []


def _refuse(reason: str) -> ConfigError:
    return ConfigError(
        f"flow.env.init_bootstrap_confs: {reason}. flowjob runs one process per machine with "
        "all its devices (flow.config.cpu_device_num/gpu_device_num); for several processes "
        "on one machine set FLOWJOB_COORDINATOR=host:port, FLOWJOB_NUM_PROCESSES and "
        "FLOWJOB_PROCESS_ID in each"
    )


def init_bootstrap_confs(
    node_list: list[str] | str,
    master_port: int,
    world_size: int = 0,
    ctrl_port: int = -1,
    node_size: int = -1,
    num_process_per_node: int = -1,
) -> list[BootstrapConf]:
    """Declares the nodes (``node_list[0]`` is the master) and the master's port; returns one
    ``BootstrapConf`` per rank. ``world_size`` (0: one per node) must equal the node count and
    ``num_process_per_node`` be 1 or -1; ``ctrl_port`` and ``node_size`` are recorded (each
    rank's own listening port is chosen by ``jax.distributed``)."""
    nodes = [node_list] if isinstance(node_list, str) else list(node_list)
    if not nodes or not all(isinstance(n, str) and n for n in nodes):
        raise ValueError(f"flow.env.init_bootstrap_confs: node_list must name hosts, got {nodes!r}")
    if _confs:
        raise ConfigError("flow.env.init_bootstrap_confs: the bootstrap confs are set already")
    if backends_started():  # jax.distributed can no longer join them
        raise ConfigError(
            "flow.env.init_bootstrap_confs: JAX already started (a job was defined or run); "
            "call it before the first job"
        )
    world = world_size or len(nodes)
    if world != len(nodes) or num_process_per_node not in (-1, 1):
        raise _refuse(
            f"world_size {world} with {len(nodes)} node(s) and num_process_per_node "
            f"{num_process_per_node} asks for several processes per node"
        )
    _distributed.machine([{"addr": host} for host in nodes])
    _distributed.ctrl_port(master_port)
    _confs.extend(
        BootstrapConf(
            master_addr=Address(nodes[0], master_port),
            rank=rank,
            world_size=world,
            host=host,
            ctrl_port=None if ctrl_port == -1 else ctrl_port,
            node_size=None if node_size == -1 else node_size,
        )
        for rank, host in enumerate(nodes)
    )
    return list(_confs)


def delete_worker_by_bootstrap(ssh_port: int = 22) -> None:
    """OneFlow removed, over ssh, the run directories it had made on the worker hosts when it
    started them. flowjob starts no workers (each machine runs the program itself), so there
    is nothing to remove: a no-op, with a one-time notice."""
    if isinstance(ssh_port, bool) or not isinstance(ssh_port, int):
        raise TypeError(f"delete_worker_by_bootstrap: ssh_port must be an int, got {ssh_port!r}")
    warn_once(
        "delete_worker_by_bootstrap",
        "oneflow.deprecated.delete_worker_by_bootstrap does nothing in flowjob: it starts no "
        "worker processes, so no worker run directory exists",
    )


def delete_worker_of_multi_process(run_dir: str) -> None:
    """Removes ``run_dir`` (the workers' log folder of a one-machine multi-process run), or
    keeps it when ``ONEFLOW_WORKER_KEEP_LOG`` is set, saying which, as OneFlow did."""
    if not run_dir:
        raise ValueError("delete_worker_of_multi_process: run_dir must name a directory")
    warn_once(
        "delete_worker_of_multi_process",
        "oneflow.deprecated.delete_worker_of_multi_process is deprecated",
    )
    if os.getenv("ONEFLOW_WORKER_KEEP_LOG"):
        print(f"worker log kept at localhost:{run_dir}", flush=True)
        return
    shutil.rmtree(run_dir)
    print(f"temp run dir removed at localhost:{run_dir}", flush=True)
