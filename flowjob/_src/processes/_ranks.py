"""Fail fast and stop together: the watch every process of a multi-process job keeps.

Everything goes through the key-value store of ``jax.distributed``'s coordination service
(keys under ``flowjob/live/``), polled by one daemon thread per process every
``min(1 s, heartbeat / 5)``:

- ``beat/<rank>``: a counter each process raises on every poll. A rank whose counter has
  not moved for ``FLOWJOB_HEARTBEAT_TIMEOUT`` seconds (killed, frozen, machine gone) is
  declared dead; so is the coordinator when the store cannot be reached for as long.
- ``failed/<rank>``: written by a process whose program raised (its ``sys.excepthook``),
  with the error's type and message; every other process reads it on its next poll.
- ``done/<rank>``: a process whose program finished (at interpreter exit); it waits in
  JAX's shutdown barrier, still watching, and the others stop expecting its heartbeat.
- ``left/<rank>``: a process that is ending now (it failed, or learned of a failure); rank 0
  waits for the others to leave before its coordination service goes.
- ``stop/<rank>`` and ``stopcount/<rank>``: SIGTERM (processes/_stop.py).

A process that learns of another's failure prints a ``RankFailedError`` line naming that rank,
its host and its error, and ends at once with status 1: its main thread may wait inside a
collective that will never complete, where no Python exception can reach it. JAX's own
heartbeat (which aborts with a C++ stack) is set longer, as a backstop.
"""

from __future__ import annotations

import atexit
import os
import signal
import socket
import sys
import threading
import time
from typing import Any

from ..errors import JobStopped, RankFailedError
from . import _service
from ._world import Timeouts, World, say

LIVE = "flowjob/live/"
HOSTS = "flowjob/host/"
SIGTERM_EXIT = 128 + signal.SIGTERM

FAILED = f"flowjob.errors.{RankFailedError.__name__}"  # the public name users catch

_watch: RankWatch | None = None


def coordination_client() -> Any:
    """The ``jax.distributed`` client whose key-value store and barriers flowjob uses.

    JAX has no public accessor for it; Orbax's multihost utilities read it the same way."""
    from jax._src import distributed

    client = distributed.global_state.client
    if client is None:
        raise RankFailedError("jax.distributed is not running in this process")
    return client


def watch() -> RankWatch | None:
    """This process's watch, None in a single-process run."""
    return _watch


class RankWatch:
    """The polling thread, the failure report and the exit of one process."""

    def __init__(self, world: World, timeouts: Timeouts, client: Any):
        self.world, self.timeouts, self.client = world, timeouts, client
        self.interval = min(1.0, timeouts.heartbeat / 5)
        self.hosts: dict[int, str] = {world.rank: socket.gethostname()}
        now = time.monotonic()
        self.seen: dict[int, tuple[str, float]] = {
            r: ("", now) for r in range(world.size) if r != world.rank
        }
        self.on_stop: list[Any] = []  # called with (rank, host) when a rank asks to stop
        self.exiting = threading.Lock()
        self.peer_failed = threading.Event()
        self.peer_failure = ""
        self.finished = False  # this program ended normally (at exit)
        self.done: set[int] = set()  # ranks whose programs ended normally
        self.thread = threading.Thread(target=self._run, name="flowjob-rank-watch", daemon=True)

    # -- naming ------------------------------------------------------------------------------
    def who(self, rank: int) -> str:
        host = self.hosts.get(rank, "unknown host")
        return f"rank {rank} of {self.world.size} (host {host})"

    # -- the thread --------------------------------------------------------------------------
    def start(self) -> None:
        rank = self.world.rank
        self.client.key_value_set(f"{HOSTS}{rank}", self.hosts[rank], allow_overwrite=True)
        self.thread.start()

    def _run(self) -> None:
        beat, unreachable_since = 0, None
        while True:
            time.sleep(self.interval)
            beat += 1
            try:
                self.client.key_value_set(
                    f"{LIVE}beat/{self.world.rank}", str(beat), allow_overwrite=True
                )
                entries = self.client.key_value_dir_get(LIVE)
                if len(self.hosts) < self.world.size:
                    for key, value in self.client.key_value_dir_get(HOSTS):
                        self.hosts[int(key.rsplit("/", 1)[1])] = value
            except Exception as exc:  # noqa: BLE001 - the coordinator is gone or overloaded
                if self.finished:
                    return  # the program ended: JAX's shutdown closed the client
                now = time.monotonic()
                unreachable_since = unreachable_since or now
                if now - unreachable_since >= self.timeouts.heartbeat:
                    self.fail(
                        f"lost the coordinator, {self.who(0)} at {self.world.address}: "
                        f"unreachable for {now - unreachable_since:.0f} s "
                        f"(FLOWJOB_HEARTBEAT_TIMEOUT={self.timeouts.heartbeat:g}): {exc}"
                    )
                continue
            unreachable_since = None
            self._observe(entries)

    def _observe(self, entries: list[tuple[str, str]]) -> None:
        now = time.monotonic()
        for key, value in entries:
            kind, _, rank_text = key[len(LIVE) :].partition("/")
            if not rank_text.isdigit():
                continue
            rank = int(rank_text)
            if kind == "failed" and rank != self.world.rank:
                self.fail(f"{self.who(rank)} failed: {value}")
            elif kind == "beat" and rank in self.seen and self.seen[rank][0] != value:
                self.seen[rank] = (value, now)
            elif kind == "done":  # finished its program: waits in JAX's shutdown barrier
                self.done.add(rank)
            elif kind == "stop":
                for callback in self.on_stop:
                    callback(rank, value)
        for rank, (_, since) in self.seen.items():
            if now - since >= self.timeouts.heartbeat and rank not in self.done:
                self.fail(
                    f"{self.who(rank)} stopped responding: no heartbeat for {now - since:.0f} s "
                    f"(killed, frozen, or its machine is unreachable; "
                    f"FLOWJOB_HEARTBEAT_TIMEOUT={self.timeouts.heartbeat:g})"
                )

    def finish(self) -> None:
        """At interpreter exit: this rank is done; the others stop expecting its heartbeat.
        It goes on watching them while it waits in JAX's shutdown barrier: if one fails
        meanwhile, the job failed, and this process ends with status 1 saying so."""
        if not self.exiting.acquire(blocking=False):
            _wait_for_the_end()  # a failure is ending the process: not JAX's shutdown
        self.exiting.release()
        self.finished = True
        try:
            self.client.key_value_set(f"{LIVE}done/{self.world.rank}", "", allow_overwrite=True)
        except Exception:  # noqa: BLE001 - the coordinator is gone already
            pass

    # -- failing -----------------------------------------------------------------------------
    def fail(self, message: str) -> None:
        """Another rank failed: say so and end this process (status 1)."""
        if not self.exiting.acquire(blocking=False):
            # this process's program raised too, maybe because of that rank: tell its hook
            self.peer_failure = self.peer_failure or message
            self.peer_failed.set()
            return
        say(f"flowjob: {FAILED}: {self.who(self.world.rank)} stops because {message}")
        self.end(1)

    def report_own_failure(self, exc: BaseException) -> None:
        """This process's program raised: tell the others (on their next poll)."""
        text = f"{type(exc).__name__}: {exc}".strip()
        if len(text) > 2000:
            text = text[:2000] + " ..."
        try:
            self.client.key_value_set(f"{LIVE}failed/{self.world.rank}", text, allow_overwrite=True)
        except Exception:  # noqa: BLE001 - the coordinator is gone: heartbeats tell instead
            pass

    def end(self, status: int) -> None:
        """Ends the process now, saying so to the others (``left/<rank>``). Rank 0 first
        waits (a few seconds at most) for them to leave, then ends the coordination service
        (processes/_service.py); one still running finds the service there, and rank 0 silent."""
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 - a closed stream: nothing more to write
                pass
        try:
            self.client.key_value_set(f"{LIVE}left/{self.world.rank}", "", allow_overwrite=True)
            if self.world.rank == 0 and self._wait_for_others_to_leave():
                _service.release()
        except Exception:  # noqa: BLE001 - the coordinator is gone already
            pass
        os._exit(status)

    def _wait_for_others_to_leave(self) -> bool:
        """True once every other rank left or ended; False after a few seconds."""
        deadline = time.monotonic() + min(self.timeouts.heartbeat, 5.0) + 2 * self.interval
        while time.monotonic() < deadline:
            now = time.monotonic()
            left = {
                int(k.rsplit("/", 1)[1]) for k, _ in self.client.key_value_dir_get(f"{LIVE}left/")
            }
            alive = {
                r
                for r, (_, since) in self.seen.items()
                if r in self.done or now - since < self.timeouts.heartbeat
            }
            if not alive - left:
                return True
            time.sleep(0.05)
        return False


def _wait_for_the_end() -> None:
    """Blocks the calling thread while the watch ends the process (``RankWatch.end``):
    leaving normally would enter jax.distributed's shutdown barrier, which the failed rank
    never reaches, and JAX aborts the process when it times out."""
    time.sleep(60)
    os._exit(1)


# Words in the errors a collective raises when a peer is gone (Gloo, NCCL, gRPC).
_PEER_ERRORS = ("gloo", "nccl", "connection", "peer", "deadline", "unavailable", "socket")


def _excepthook(previous: Any) -> Any:
    def hook(kind: type, exc: BaseException, tb: Any) -> None:
        watch = _watch
        if isinstance(exc, JobStopped):  # a stop every rank agreed on: no traceback
            say(f"flowjob.errors.{kind.__name__}: {exc}")
            return  # the usual exit (status 1), through jax.distributed's shutdown barrier
        if watch is None:
            previous(kind, exc, tb)
            return
        if not watch.exiting.acquire(blocking=False):
            _wait_for_the_end()  # the watch is ending the process: never exit normally
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
    global _watch
    watch = RankWatch(world, timeouts, coordination_client())
    _watch = watch
    # Registered after JAX's exit hook, so it runs first (atexit is last-in, first-out).
    atexit.register(watch.finish)
    sys.excepthook = _excepthook(sys.excepthook)
    return watch
