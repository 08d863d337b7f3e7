"""SIGTERM in a multi-process job: every rank stops after the same job call.

Schedulers (SLURM, Kubernetes) stop a job with SIGTERM, to one process or to all. The first
SIGTERM a process receives is published (``flowjob/live/stop/<rank>``); each process learns
of it from its own signal or from its rank watch, and then, under the lock its job calls
count under, publishes how many calls it has dispatched (``stopcount/<rank>``) and dispatches
no further call until every rank's count is in. All ranks then stop at the largest count:
the ones behind run the calls up to it (their peers take part in those calls already), so
no rank is left waiting inside a collective. The wait depends only on the other ranks'
watch threads, never on their main threads, so it cannot deadlock.

At the stop, each rank finishes its calls in flight (handlers, callbacks), runs the
callbacks registered with ``flow.env.on_preemption`` (a checkpoint, say), and raises
:class:`JobStopped` from the job call: the program ends with status 1 unless it catches it.
A second SIGTERM ends the process at once (status 143).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

from ..errors import JobStopped
from . import _agree
from ._ranks import LIVE, SIGTERM_EXIT, RankWatch
from ._world import say

guard: StopGuard | None = None  # read on every job call: None in a single-process run
_preemption_callbacks: list[Callable[[], Any]] = []


def stop_guard() -> StopGuard | None:
    """The guard every job call of a multi-process job passes (None with one process): it
    checks the first call's inputs across ranks and carries out a stop on SIGTERM.

    Examples:
        >>> from flowjob._src.processes import stop_guard
        >>> stop_guard() is None  # one process
        True
    """
    return guard


def on_preemption(callback: Callable[[], Any]) -> Callable[[], Any]:
    """Registers ``callback()`` to run on every rank when a multi-process job stops on
    SIGTERM: after the job call in flight completes, before :class:`JobStopped` is raised.
    Typically it saves a checkpoint (``flow.checkpoint.save`` is collective: every rank
    calls it). Returns ``callback``, so it works as a decorator.

    >>> import flowjob as flow
    >>> hook = flow.env.on_preemption(lambda: None)
    """
    if not callable(callback):
        raise TypeError(f"flow.env.on_preemption takes a callable, got {callback!r}")
    _preemption_callbacks.append(callback)
    return callback


class StopGuard:
    """Runs before every job call of a multi-process job: the first call of each job checks
    that every rank passes the same arguments, and a requested stop is carried out."""

    def __init__(self, watch: RankWatch):
        self.watch = watch
        self.lock = threading.Lock()
        self.requested = False
        self.target: int | None = None
        self.stopping = False
        self.checked: set[str] = set()

    def learn(self, rank: int, host: str) -> None:
        """Any thread: some rank asked to stop; publish this rank's count once."""
        with self.lock:
            if self.requested:
                return
            self.requested = True
            at = self.watch.calls
        world = self.watch.world
        if rank != world.rank:
            say(
                f"flowjob: rank {world.rank}: rank {rank} (host {host}) received SIGTERM; "
                "stopping after the step in flight"
            )
        try:
            self.watch.client.key_value_set(f"{LIVE}stopcount/{world.rank}", str(at))
        except Exception:  # noqa: BLE001 - the coordinator is gone: the watch reports it
            pass

    def before_call(
        self,
        job_name: str,
        params: Any,
        host_args: list[Any],
        calls: Any,
        outline: Callable[[], list[str]] = list,
    ) -> None:
        """``outline()``: the job's program, one line per op (compared at its first call)."""
        if job_name not in self.checked:
            _agree.check_first_call(self.watch, job_name, params, host_args, outline)
            self.checked.add(job_name)
        with self.lock:
            if not self.requested or self.stopping:
                self.watch.calls += 1
                return
        if calls.completion.in_worker():  # a call made by a callback: its caller stops
            with self.lock:
                self.watch.calls += 1
            return
        self._stop_point(calls)

    def _stop_point(self, calls: Any) -> None:
        if self.target is None:
            self.target = max(self._counts().values())
        with self.lock:
            if self.watch.calls < self.target:
                self.watch.calls += 1
                return
            self.stopping = True
        calls.wait()  # the calls in flight finish, with their handlers and callbacks
        for callback in list(_preemption_callbacks):
            callback()
        world = self.watch.world
        raise JobStopped(
            f"rank {world.rank} of {world.size}: stopped on SIGTERM after {self.watch.calls} job "
            "call(s), the same on every rank"
            + (" (preemption callbacks ran)" if _preemption_callbacks else "")
        )

    def _counts(self) -> dict[int, int]:
        watch = self.watch
        deadline = time.monotonic() + watch.timeouts.sync
        while True:
            entries = watch.client.key_value_dir_get(f"{LIVE}stopcount/")
            counts = {int(k.rsplit("/", 1)[1]): int(v) for k, v in entries}
            if len(counts) >= watch.world.size:
                return counts
            if time.monotonic() > deadline:
                missing = sorted(set(range(watch.world.size)) - set(counts))
                raise JobStopped(
                    f"SIGTERM: ranks {missing} did not say where they are within "
                    f"{watch.timeouts.sync:g} s (FLOWJOB_SYNC_TIMEOUT)"
                )
            time.sleep(0.02)


def _signal_thread(read_fd: int, watch: RankWatch, stop: StopGuard) -> None:
    received = 0
    while True:
        try:
            data = os.read(read_fd, 64)
        except OSError:
            return
        for number in data:
            if number != signal.SIGTERM:
                continue
            received += 1
            world = watch.world
            if received > 1:
                say(f"flowjob: rank {world.rank}: second SIGTERM, stopping at once")
                if watch.exiting.acquire(blocking=False):
                    watch.report_own_failure(RuntimeError("stopped at once by a second SIGTERM"))
                    watch.end(SIGTERM_EXIT)
                return
            say(
                f"flowjob: rank {world.rank}: SIGTERM received; every rank stops after the "
                "step in flight (send SIGTERM again to stop at once)"
            )
            host = watch.hosts[world.rank]
            try:
                watch.client.key_value_set(f"{LIVE}stop/{world.rank}", host, allow_overwrite=True)
            except Exception:  # noqa: BLE001 - the coordinator is gone: the watch reports it
                pass
            stop.learn(world.rank, host)


def start(watch: RankWatch) -> None:
    """Installs the stop guard and, from the main thread, the SIGTERM handling (the signal
    only wakes a thread: the main thread may be waiting inside a collective)."""
    global guard
    stop = StopGuard(watch)
    watch.on_stop.append(stop.learn)
    guard = stop
    if threading.current_thread() is not threading.main_thread():
        say("flowjob: jax.distributed started off the main thread: SIGTERM is not handled")
        return
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    signal.signal(signal.SIGTERM, lambda number, frame: None)
    signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
    threading.Thread(
        target=_signal_thread, args=(read_fd, watch, stop), name="flowjob-sigterm", daemon=True
    ).start()
