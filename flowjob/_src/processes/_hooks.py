"""How a rank's own end reaches its watch (processes/_ranks.py): its uncaught exception
(``sys.excepthook``) and its program's end (an exit hook, run before JAX's own)."""

from __future__ import annotations

import atexit
import sys
from typing import Any

from ..errors import JobStopped
from . import _ranks
from ._ranks import FAILED, RankWatch, coordination_client, wait_for_the_end
from ._world import Timeouts, World, say

# Words in the errors a collective raises when a peer is gone (Gloo, NCCL, gRPC).
_PEER_ERRORS = ("gloo", "nccl", "connection", "peer", "deadline", "unavailable", "socket")


def _excepthook(previous: Any) -> Any:
    def hook(kind: type, exc: BaseException, tb: Any) -> None:
        watch = _ranks.watch()
        if isinstance(exc, JobStopped):  # a stop every rank agreed on: no traceback
            say(f"flowjob.errors.{kind.__name__}: {exc}")
            return  # the usual exit (status 1), through jax.distributed's shutdown barrier
        if watch is None:
            previous(kind, exc, tb)
            return
        if not watch.exiting.acquire(blocking=False):
            wait_for_the_end()  # the watch is ending the process: never exit normally
        # An error of a collective is most likely another rank's failure: give the watch
        # time to find out which (it reports a dead rank after the heartbeat timeout).
        text = str(exc).lower()
        peer = any(word in text for word in _PEER_ERRORS)
        wait = watch.timeouts.heartbeat + 3 * watch.interval
        if peer and watch.peer_failed.wait(wait):
            previous(kind, exc, tb)
            say(
                f"flowjob: {FAILED}: "
                f"{watch.who(watch.world.rank)} stops because {watch.peer_failure}"
            )
            watch.end(1)
        watch.report_own_failure(exc)
        previous(kind, exc, tb)
        say(f"flowjob: {watch.who(watch.world.rank)} failed; the other ranks stop too")
        # Exiting normally would wait in jax.distributed's shutdown barrier for ranks that
        # are still training.
        watch.end(1)

    return hook


def start(world: World, timeouts: Timeouts) -> RankWatch:
    """Installs the watch of this process (after ``jax.distributed.initialize``); its thread
    starts with :meth:`RankWatch.start`, once the caller has hooked its own parts to it."""
    watch = RankWatch(world, timeouts, coordination_client())
    _ranks.install(watch)
    # Registered after JAX's exit hook, so it runs first (atexit is last-in, first-out).
    atexit.register(watch.finish)
    sys.excepthook = _excepthook(sys.excepthook)
    return watch
