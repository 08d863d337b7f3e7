"""A rank's end that the others must learn of at once: a failure before it joined them, and
a failing exit status that ``flowjob run`` knows.

The ranks join at the first job call. One that fails earlier (its checkpoint is missing, its
arguments are wrong) would leave the others waiting in the join for ``FLOWJOB_INIT_TIMEOUT``
(300 s), saying they wait for it. Instead it joins just long enough to publish its failure
(``flowjob/live/failed/<rank>``, read by every rank's watch as soon as the join completes);
rank 0 starts the coordination service for that. It waits for the others to come at most
:data:`TELL_WITHIN` seconds (or the init timeout, if shorter).

``SystemExit`` never reaches ``sys.excepthook``, and an exit hook cannot read the exit
status: a rank whose program calls ``sys.exit(3)`` would look like one that ended. Under
``flowjob run`` (and so ``flowjob launch``) the status is known: a nonzero one is this rank's
failure, told to the others at once; the process still ends with that status.
"""

from __future__ import annotations

import sys
from typing import Any

from . import _client, _connect, _distributed, _ranks, _service
from ._peers import HOSTS, Peers
from ._world import Timeouts, World, say

TELL_WITHIN = 30.0  # seconds a rank that failed before joining waits for the others to come

_installed = False
_decided = False  # this rank's end before joining was dealt with (told, or not to tell)


def install() -> None:
    """Hooks ``sys.excepthook`` (once) in a process that is a rank of several."""
    global _installed
    if _installed:
        return
    _installed = True
    sys.excepthook = _hook(sys.excepthook)


def _hook(previous: Any) -> Any:
    def hook(kind: type, exc: BaseException, tb: Any) -> None:
        global _decided
        previous(kind, exc, tb)
        if _decided or _ranks.watch() is not None or _distributed.started():
            return
        _decided = True
        if not issubclass(kind, KeyboardInterrupt):  # a Ctrl-C reaches every rank itself
            tell_before_joining(f"{kind.__name__}: {exc}".strip())

    return hook


def program_exits(status: int) -> None:
    """``flowjob run``'s program ends with ``status``: a nonzero one is this rank's failure,
    told to the others now (before or after joining them).

    Examples:
        >>> from flowjob._src.processes import program_exits
        >>> program_exits(0)  # a success, or a single process: nothing to tell
    """
    if not status:
        return
    text = f"SystemExit: its program exited with status {status}"
    global _decided
    watch = _ranks.watch()
    if watch is None:
        if not _decided and not _distributed.started():
            _decided = True
            tell_before_joining(text)
        return
    if watch.exiting.acquire(blocking=False):
        watch.exit_status = status
        watch.report(text)
        watch.exiting.release()
        who = watch.who(watch.world.rank)
        say(f"flowjob: {who} exits with status {status}; the other ranks stop")


def tell_before_joining(text: str) -> None:
    """Joins the others briefly to publish this rank's failure ``text``."""
    try:
        world = _distributed.configured_world()
        timeouts = Timeouts.from_env()
    except Exception:  # noqa: BLE001 - the settings are what failed: nobody to tell
        return
    if world is None or world.size < 2:
        return
    seconds = min(TELL_WITHIN, timeouts.init)
    say(
        f"flowjob: rank {world.rank} of {world.size} failed before joining the others; "
        f"telling them (waiting at most {seconds:.0f} s for them at {world.address})"
    )
    try:
        _publish(world, timeouts, seconds, f"failed before joining: {text}")
    except Exception as exc:  # noqa: BLE001 - the others find out by their join timeout
        say(f"flowjob: rank {world.rank} could not tell the others: {exc}")


def _publish(world: World, timeouts: Timeouts, seconds: float, text: str) -> None:
    import jax  # noqa: F401 - the client's library

    if world.rank == 0:
        _connect.claim_coordinator(world)
        _connect.check_port_free(world)
        _host_service(world, timeouts)
    client = _client.make(
        world.address, world.rank, init_timeout=int(seconds), heartbeat_timeout=60
    )
    client.connect()
    record = Peers(world.rank, world.size).record()
    client.key_value_set(f"{HOSTS}{world.rank}", record, allow_overwrite=True)
    client.key_value_set(f"{_ranks.LIVE}failed/{world.rank}", text, allow_overwrite=True)


def _host_service(world: World, timeouts: Timeouts) -> None:
    from jax._src import distributed

    library = distributed._jax
    settings = {
        "heartbeat_timeout": int(max(60.0, 4 * timeouts.heartbeat)),
        "shutdown_timeout": int(max(30.0, 2 * timeouts.heartbeat)),
        "recoverable": True,
        "num_nodes": world.size,
    }
    # lingers after this process ends, until the others have read the failure and left
    linger = _service.linger_seconds(timeouts.heartbeat)
    _service.HostedService(library.__name__, world.address, settings, linger)
