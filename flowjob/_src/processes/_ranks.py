"""Fail fast and stop together: the watch every process of a multi-process job keeps.

Everything goes through the key-value store of ``jax.distributed``'s coordination service
(keys under ``flowjob/live/``), polled by one daemon thread per process every
``min(1 s, heartbeat / 5)``:

- ``beat/<rank>``: a counter each process raises on every poll. A rank whose counter has
  not moved for ``FLOWJOB_HEARTBEAT_TIMEOUT`` seconds (killed, frozen, machine gone) is
  declared dead; on the same machine, one whose process is gone is declared dead after a
  few polls (processes/_peers.py); so is the coordinator when the store cannot be reached
  for as long.
- ``failed/<rank>``: written by a process whose program raised (its ``sys.excepthook``),
  exited with a failing status (``flowjob run``), failed before it joined
  (processes/_early.py), or found that the ranks' programs differ; with the error's type
  and message; every other process reads it on its next poll.
- ``done/<rank>``: a process whose program ended (at interpreter exit), with its job-call
  count; it waits, still watching, until every other rank's program ended too, and only then
  goes into JAX's shutdown. A rank that made more job calls than a finished one, or waits
  for it at a meeting, is past a point the finished one never reaches: it names it
  (processes/_positions.py). The finished one then leaves without the shutdown barrier,
  with its own program's exit status.
- ``at/<rank>``: the meeting a process waits in (processes/_agree.py, _positions.py).
- ``left/<rank>``: a process that is ending now (it failed, or learned of a failure); rank 0
  waits for the others to leave before its coordination service goes.
- ``stop/<rank>`` and ``stopcount/<rank>``: SIGTERM (processes/_stop.py).

A process that learns of another's failure prints a ``RankFailedError`` line naming that rank,
its host and its error, and ends at once with status 1: its main thread may wait inside a
collective that will never complete, where no Python exception can reach it. JAX's own
heartbeat is set longer, as a backstop; the service runs its tasks as recoverable, so it
never turns a rank's end into an abort of the others (processes/_service.py).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import socket
import sys
import threading
import time
from typing import Any

from ..errors import JobStopped, RankFailedError
from . import _client, _service
from ._peers import HOSTS, Peers
from ._positions import Position, divergence, token
from ._world import Timeouts, World, say

LIVE = "flowjob/live/"
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


def install(watch: RankWatch) -> None:
    """Makes ``watch`` this process's (processes/_hooks.py)."""
    global _watch
    _watch = watch


class RankWatch:
    """The polling thread, the failure report and the exit of one process."""

    def __init__(self, world: World, timeouts: Timeouts, client: Any):
        self.world, self.timeouts, self.client = world, timeouts, client
        self.interval = min(1.0, timeouts.heartbeat / 5)
        self.peers = Peers(world.rank, world.size)
        self.hosts = self.peers.hosts
        now = time.monotonic()
        self.seen: dict[int, tuple[str, float]] = {
            r: ("", now) for r in range(world.size) if r != world.rank
        }
        self.on_stop: list[Any] = []  # called with (rank, host) when a rank asks to stop
        self.exiting = threading.Lock()
        self.peer_failed = threading.Event()
        self.peer_failure = ""
        self.finished = False  # this program ended (at exit)
        self.done: set[int] = set()  # ranks whose programs ended normally
        self.left: set[int] = set()  # ranks that ended their process on a failure
        # Where this rank is in its program (processes/_positions.py): job calls dispatched
        # (counted by processes/_stop.py), the meeting it waits in, the meetings it held.
        self.calls = 0
        self.meeting: str | None = None
        self.met: set[str] = set()
        self.meetings = (0, 0)  # (calls, how many meetings) at the last meeting
        self.positions: dict[int, Position] = {}
        self.exit_status: int | None = None  # the program's, where `flowjob run` knows it
        self.settled = threading.Event()  # a finished rank may leave (self.outcome: why alone)
        self.outcome = ""
        self.thread = threading.Thread(target=self._run, name="flowjob-rank-watch", daemon=True)

    # -- naming ------------------------------------------------------------------------------
    def who(self, rank: int) -> str:
        return self.peers.who(rank)

    # -- meetings ----------------------------------------------------------------------------
    def arrive(self, what: str) -> str:
        """This rank waits at a meeting every rank must attend; returns its token."""
        calls, count = self.meetings
        count = count + 1 if calls == self.calls else 1
        self.meetings = (self.calls, count)
        self.meeting = token(self.calls, count - 1, what)
        self.client.key_value_set(f"{LIVE}at/{self.world.rank}", self.meeting, allow_overwrite=True)
        return self.meeting

    def depart(self, held: bool) -> None:
        """The meeting ended (``held``: every rank attended it)."""
        if held and self.meeting is not None:
            self.met.add(self.meeting)
        self.meeting = None

    # -- the thread --------------------------------------------------------------------------
    def start(self) -> None:
        """Publishes who this rank is, learns who the others are (every rank has joined:
        each publishes at once; a few seconds at most), then starts the thread."""
        rank = self.world.rank
        self.client.key_value_set(f"{HOSTS}{rank}", self.peers.record(), allow_overwrite=True)
        deadline = time.monotonic() + min(10.0, self.timeouts.heartbeat)
        while not self.peers.complete() and time.monotonic() < deadline:
            self.peers.read(self.client.key_value_dir_get(HOSTS))
            if self.peers.size_mismatch():
                break  # the thread's first poll says so
            if not self.peers.complete():
                time.sleep(0.01)
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
                if not self.peers.complete():
                    self.peers.read(self.client.key_value_dir_get(HOSTS))
            except Exception as exc:  # noqa: BLE001 - the coordinator is gone or overloaded
                if self.finished:
                    # JAX's shutdown closed the client, or the coordinator is gone
                    self.settle("" if self.settled.is_set() else f"the coordinator is gone: {exc}")
                    return
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
            mismatch = self.peers.size_mismatch()
            if mismatch:
                self.diverge(mismatch)
            self._observe(entries)

    def _observe(self, entries: list[tuple[str, str]]) -> None:
        now = time.monotonic()
        me = self.world.rank
        for key, value in entries:
            kind, _, rank_text = key[len(LIVE) :].partition("/")
            if not rank_text.isdigit() or int(rank_text) == me:
                continue
            rank = int(rank_text)
            if kind == "failed":
                self.fail(f"{self.who(rank)} failed: {value}")
            elif kind == "beat" and rank in self.seen and self.seen[rank][0] != value:
                self.seen[rank] = (value, now)
            elif kind in ("at", "done"):
                if kind == "done":  # finished its program: waits for the others at exit
                    self.done.add(rank)
                position = Position.parse(kind, value)
                if position is not None and (kind == "done" or rank not in self.done):
                    self.positions[rank] = position
            elif kind == "left":
                self.left.add(rank)
            elif kind == "stop":
                for callback in self.on_stop:
                    callback(rank, value)
        for rank, position in sorted(self.positions.items()):
            why = divergence(
                self.who(rank), position, self.who(me), self.calls, self.meeting, self.met
            )
            if why:
                self.diverge(why)
        for rank, (_, since) in self.seen.items():
            if rank in self.done:
                continue
            silent = now - since
            if silent >= 3 * self.interval and self.peers.gone(rank):
                self.fail(
                    f"{self.who(rank)} ended without a word: its process (pid "
                    f"{self.peers.pids[rank]}) is gone (os._exit, a crash or a signal)"
                )
            elif silent >= self.timeouts.heartbeat:
                self.fail(
                    f"{self.who(rank)} stopped responding: no heartbeat for {silent:.0f} s "
                    f"(killed, frozen, or its machine is unreachable; "
                    f"FLOWJOB_HEARTBEAT_TIMEOUT={self.timeouts.heartbeat:g})"
                )
        if self.finished:
            gone = sorted(self.left - self.done)
            if gone:
                self.settle(f"{self.who(gone[0])} ended on a failure")
            elif len(self.done) >= self.world.size - 1:
                self.settle("")

    def finish(self) -> None:
        """At interpreter exit: this rank's program ended. It says so (``done/<rank>``, with
        its job-call count) and waits, still watching, for every other rank's program to end
        too; then JAX's shutdown runs as usual. Should another rank fail, leave early or have
        run further (their programs differ) meanwhile, it says so and leaves without JAX's
        shutdown barrier, which would wait for a rank that never comes: the process ends
        with its own program's exit status."""
        if not self.exiting.acquire(blocking=False):
            wait_for_the_end()  # a failure is ending the process: not JAX's shutdown
        self.exiting.release()
        self.finished = True
        if self.exit_status:  # `flowjob run` reported it as this rank's failure already
            self.leave_alone()
            return
        try:
            self.client.key_value_set(
                f"{LIVE}done/{self.world.rank}", str(self.calls), allow_overwrite=True
            )
        except Exception:  # noqa: BLE001 - the coordinator is gone already
            self.settle("the coordinator is gone")
        while not self.settled.wait(1.0):
            if not self.thread.is_alive():
                self.settle("this rank's watch ended")
        if self.outcome:
            say(
                f"flowjob: {self.who(self.world.rank)} ended its program after {self.calls} job "
                f"call(s) and leaves without waiting for the others: {self.outcome}"
            )
            self.leave_alone()
            return
        self._goodbye()

    def _goodbye(self) -> None:
        """Every program ended: the ranks leave with JAX's shutdown, rank 0 last, since its
        coordination service must outlive every other rank's client (a client that loses
        the service ends its process with a fatal abort)."""
        if self.world.rank:
            with contextlib.suppress(Exception):  # the coordinator is gone already
                self.client.key_value_set(f"{LIVE}bye/{self.world.rank}", "")
            _client.shut_down()
            return
        deadline = time.monotonic() + min(10.0, self.timeouts.heartbeat)
        with contextlib.suppress(Exception):
            while time.monotonic() < deadline:
                if len(self.client.key_value_dir_get(f"{LIVE}bye/")) >= self.world.size - 1:
                    break
                time.sleep(0.02)
        time.sleep(0.5)  # their disconnects, under way

    def settle(self, outcome: str) -> None:
        """A finished rank may leave: every other one finished too ("") or ``outcome``."""
        if not self.settled.is_set():
            self.outcome = outcome
            self.settled.set()

    # -- failing -----------------------------------------------------------------------------
    def fail(self, message: str) -> None:
        """Another rank failed: say so and end this process (status 1)."""
        self._stop(message, tell_others=False)

    def diverge(self, message: str) -> None:
        """This rank found that the ranks' programs or settings differ: it fails, naming
        the difference, and the others learn it as its failure."""
        self._stop(message, tell_others=True)

    def _stop(self, message: str, tell_others: bool) -> None:
        if self.finished:
            self.settle(message)
            return
        if not self.exiting.acquire(blocking=False):
            # this process's program raised too, maybe because of that rank: tell its hook
            self.peer_failure = self.peer_failure or message
            self.peer_failed.set()
            return
        if tell_others:
            self.report(f"{RankFailedError.__name__}: {message}")
        say(f"flowjob: {FAILED}: {self.who(self.world.rank)} stops because {message}")
        self.end(1)

    def report_own_failure(self, exc: BaseException) -> None:
        """This process's program raised: tell the others (on their next poll)."""
        self.report(f"{type(exc).__name__}: {exc}".strip())

    def report(self, text: str) -> None:
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
        self.leave_alone()
        os._exit(status)

    def leave_alone(self) -> None:
        """Says this rank leaves (``left/<rank>``) and takes JAX's shutdown barrier out of
        the way: the others do not all come to it."""
        try:
            self.client.key_value_set(f"{LIVE}left/{self.world.rank}", "", allow_overwrite=True)
            if self.world.rank == 0 and self._wait_for_others_to_leave():
                _service.release()
        except Exception:  # noqa: BLE001 - the coordinator is gone already
            pass
        _client.forget()

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
                if (r in self.done or now - since < self.timeouts.heartbeat)
                and not self.peers.gone(r)
            }
            if not alive - left:
                return True
            time.sleep(0.05)
        return False


def wait_for_the_end() -> None:
    """Blocks the calling thread while the watch ends the process (``RankWatch.end``):
    leaving normally would enter jax.distributed's shutdown barrier, which the failed rank
    never reaches, and JAX aborts the process when it times out."""
    time.sleep(60)
    os._exit(1)
