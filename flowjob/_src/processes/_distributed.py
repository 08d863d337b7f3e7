"""Several machines (processes) training together through ``jax.distributed``.

Every process runs the same script. The first machine of ``flow.env.machine([...])`` hosts the
coordinator on ``ctrl_port``; each process learns its rank from ``FLOWJOB_PROCESS_ID`` (or from
the one machine entry whose address is local). Environment variables do the same without code:
``FLOWJOB_COORDINATOR=host:port``, ``FLOWJOB_NUM_PROCESSES``, ``FLOWJOB_PROCESS_ID``.
Only the first process runs watch handlers and summary ops and writes checkpoints; result
callbacks run in every process, on that process's own calls (rank-local). Failures, SIGTERM
and the coordinator's timeouts: processes/_connect.py and processes/_ranks.py.
"""

from __future__ import annotations

import os
import socket
import warnings
from collections.abc import Callable
from typing import Any

from ..errors import ConfigError
from . import _agree, _connect, _ranks
from ._world import Timeouts, World

_machines: list[dict[str, Any]] = []
_port = 49155
_started = False
on_several: list[Callable[[], None]] = []  # called when flow.env.machine names several
_fixed = False  # init() ran (the first job was compiled): the machines cannot change


def _too_late(call: str, *, harmless: bool) -> bool:
    """OneFlow read the machines when its environment started (``flow.env.init()`` or the
    first job launch) and did nothing on later calls; flowjob starts ``jax.distributed`` then
    too. True (ignore the call, with a warning) where it is ``harmless``: it would not change
    what this process runs on. A later call that would (several machines declared, another
    coordinator port of a started run) raises instead of training on what it did not ask."""
    if not _fixed:
        return False
    if harmless:
        warnings.warn(
            f"{call} does nothing: the environment is already initialized (flow.env.init() "
            "or the first job call), as OneFlow ignored it then",
            stacklevel=3,
        )
        return True
    raise ConfigError(
        f"{call}: the machines are fixed once the first job is compiled (this process "
        f"runs as {len(_machines) or 1} machine(s)); call flow.env.machine and "
        "flow.env.ctrl_port before the first job call"
    )


def machine(*val: list[dict[str, Any]] | dict[str, Any]) -> None:
    """Declares the machines, first one = coordinator: a list such as
    ``[{"addr": "192.168.1.12"}, ...]``, or the dicts as separate arguments (OneFlow's
    ``machine(*val)``)."""
    global _machines
    machines = val[0] if len(val) == 1 and isinstance(val[0], (list, tuple)) else list(val)
    items = [machines] if isinstance(machines, dict) else list(machines)
    for m in items:
        if not isinstance(m, dict) or "addr" not in m:
            raise ValueError(f"flow.env.machine takes dicts with an 'addr' key, got {m!r}")
    alone = not _started and len(items) <= 1
    if _too_late(f"flow.env.machine({machines!r})", harmless=alone):
        return
    _machines = items
    if len(items) > 1:
        for callback in on_several:
            callback()


def ctrl_port(val: int) -> None:
    """The coordinator's port on the first machine."""
    global _port
    port = val
    if type(port) is not int or not 0 < port < 65536:
        raise ValueError(f"ctrl_port must be a port number, got {port!r}")
    if _too_late(f"flow.env.ctrl_port({port!r})", harmless=not _started or port == _port):
        return
    _port = port


def _local_rank_guess() -> int:
    local = {"127.0.0.1", "localhost", socket.gethostname()}
    try:
        local.add(socket.gethostbyname(socket.gethostname()))
    except OSError:
        pass
    matches = [i for i, m in enumerate(_machines) if m["addr"] in local]
    if len(matches) != 1:
        addrs = [m["addr"] for m in _machines]
        which = "none of them is" if not matches else "several of them are"
        raise ConfigError(
            f"flow.env.machine lists {len(addrs)} machines {addrs}, but {which} this one "
            f"({sorted(local)}), so this process cannot tell its rank and will not train "
            "alone: run the program on each listed machine, or set FLOWJOB_PROCESS_ID=<index> "
            "for each process"
        )
    return matches[0]


def init() -> bool:
    """Starts ``jax.distributed`` once if several processes are configured; True if it did."""
    global _started, _fixed
    _fixed = True
    if _started:
        return True
    world = configured_world()
    if world is None:
        return False
    _connect.connect(world, Timeouts.from_env())
    _started = True
    return True


def started() -> bool:
    """True once this process joined the others."""
    return _started


def several() -> bool:
    """Whether several processes are configured (``flow.env.machine``, the environment)."""
    return _started or configured_world() is not None


def configured_world() -> World | None:
    """The processes the environment or ``flow.env.machine`` declare, None for one."""
    coordinator = os.environ.get("FLOWJOB_COORDINATOR")
    count = os.environ.get("FLOWJOB_NUM_PROCESSES")
    rank = os.environ.get("FLOWJOB_PROCESS_ID")
    if coordinator is None and len(_machines) > 1:
        coordinator = f"{_machines[0]['addr']}:{_port}"
        count = str(len(_machines))
        rank = rank if rank is not None else str(_local_rank_guess())
    if coordinator is None:
        return None
    if count is None or rank is None:
        raise ConfigError(
            "FLOWJOB_COORDINATOR needs FLOWJOB_NUM_PROCESSES and FLOWJOB_PROCESS_ID as well"
        )
    return World.parse(coordinator, count, rank)


def is_primary() -> bool:
    """True in the process that delivers results (the first one)."""
    import jax

    return jax.process_index() == 0


def first_process_does(what: str, work: Callable[[], None], primary: bool = True) -> None:
    """Runs ``work`` in the first process only. In a multi-process job every process returns
    once it has finished (a barrier), or raises its error; ``what`` names it in messages."""
    watch = _ranks.watch()
    if watch is not None:
        _agree.share_outcome(watch, what, work)
    elif primary:
        work()
