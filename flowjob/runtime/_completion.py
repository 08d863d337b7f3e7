"""The one ordered completion thread: watch handlers, host ops and callbacks run here, or on
the thread of a blocking call that found nothing pending (``begin_inline``)."""

from __future__ import annotations

import queue
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any

from ..errors import CallbackError


class CompletionQueue:
    """Runs submitted tasks one at a time, in submission order, on a daemon thread.

    Exceptions raised by user code in a task are kept and re-raised once, chained, from the
    next synchronisation point (``raise_pending``); the thread itself keeps going.

    A blocking call with nothing pending may run its own handlers on its thread instead
    (``begin_inline`` .. ``end_inline``): meanwhile it counts as a pending task and holds the
    lock every task runs under, so what is submitted meanwhile (calls launched by those
    handlers, other threads' calls) runs after it, and that thread counts as the worker.
    """

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Callable[[], Any] | None] = queue.SimpleQueue()
        self._pending = 0
        self._draining = 0  # threads waiting in drain(): only they need notifying
        self._cond = threading.Condition(threading.Lock())
        self._errors: list[tuple[BaseException, str]] = []
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._running = threading.Lock()  # held while a task (or inline handlers) runs
        self._inline_thread: threading.Thread | None = None

    def _ensure_thread(self) -> None:
        if self._thread is None:
            with self._start_lock:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, name="flowjob-completion",
                                                    daemon=True)
                    self._thread.start()

    def in_worker(self) -> bool:
        """True on the thread that runs tasks now: the completion thread or an inline one."""
        current = threading.current_thread()
        return current is self._thread or current is self._inline_thread

    def begin_inline(self) -> bool:
        """Claims the right to run one call's handlers on this thread, in order: only when no
        task is pending or running. Must be followed by ``end_inline`` when it returns True."""
        with self._cond:
            if self._pending or not self._running.acquire(blocking=False):
                return False
            self._pending += 1
        self._inline_thread = threading.current_thread()
        return True

    def end_inline(self) -> None:
        self._inline_thread = None
        self._running.release()
        with self._cond:
            self._pending -= 1
            if self._draining:
                self._cond.notify_all()

    def submit(self, task: Callable[[], Any]) -> None:
        """Queues ``task``; if it returns a callable, that runs after its bookkeeping."""
        with self._cond:
            self._pending += 1
        self._ensure_thread()
        self._queue.put(task)

    def _run(self) -> None:
        while True:
            task = self._queue.get()
            if task is None:
                return
            wake = None
            self._running.acquire()
            try:
                wake = task()
            except BaseException as exc:  # noqa: BLE001 - kept and re-raised to the caller
                self.record_error(exc, "a runtime task")
            finally:
                self._running.release()
                with self._cond:
                    self._pending -= 1
                    if self._draining:
                        self._cond.notify_all()
            if wake is not None:
                # A task may hand back the wake-up of a thread waiting for it, to be done
                # last: that thread then finds the GIL free instead of sleeping again for it
                # while this one finishes its bookkeeping.
                wake()

    def idle(self) -> bool:
        """True when no submitted task is waiting or running.

        Read without the lock (an int read is atomic): callers hold the session's dispatch
        lock, so no call's completion can be queued meanwhile, and a stale non-zero only
        sends a call the slower way."""
        return self._pending == 0

    def record_error(self, exc: BaseException, where: str) -> None:
        with self._cond:
            self._errors.append((exc, where))

    def drain(self) -> None:
        """Waits until every task submitted so far has run."""
        if self.in_worker():
            raise CallbackError(
                "flow.sync_default_session() / a blocking result was requested from inside a "
                "watch handler or result callback; it would wait for itself. Use "
                "tp.Callback / async_get inside callbacks instead")
        with self._cond:
            self._draining += 1
            try:
                while self._pending:
                    self._cond.wait()
            finally:
                self._draining -= 1

    def raise_pending(self) -> None:
        """Re-raises (once) what user callbacks raised since the last synchronisation."""
        if not self._errors:  # the common case, without taking the lock
            return
        with self._cond:
            errors, self._errors = self._errors, []
        if not errors:
            return
        first, where = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise CallbackError(f"{where} raised {type(first).__name__}: {first}{more}") from first

    def report_pending_at_exit(self) -> int:
        """Prints the errors nobody will raise any more; returns how many."""
        with self._cond:
            errors, self._errors = self._errors, []
        for exc, where in errors:
            print(f"flowjob: {where} raised:", file=sys.stderr)
            traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
        return len(errors)
