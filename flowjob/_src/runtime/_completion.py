"""The one ordered completion thread: watch handlers, host ops and callbacks run here, or on
the thread of a blocking call that found nothing pending (``begin_inline``)."""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from .._traceback import format_exception
from ..errors import CallbackError
from ._interrupt import HOLD

# How often a wait in ``drain`` looks for a Ctrl-C that HOLD noted.
_POLL_S = 0.05


class CompletionQueue:
    """Runs submitted tasks one at a time, in submission order, on a daemon thread.

    Exceptions raised by user code in a task are summarised (``ErrorSummary``) and re-raised
    once, chained, from the next synchronisation point (``raise_pending``); the thread itself
    keeps going.

    A blocking call with nothing pending may run its own handlers on its thread instead
    (``begin_inline`` .. ``end_inline``): meanwhile it counts as a pending task and holds the
    lock every task runs under, so what is submitted meanwhile (calls launched by those
    handlers, other threads' calls) runs after it, and that thread counts as the worker.
    """

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Callable[[], Any] | None] = queue.SimpleQueue()
        # Tasks submitted and not finished (read without the lock by a job call's short way,
        # runtime/_direct.py: a stale non-zero only sends a call the slower way)
        self.tasks = 0
        self._draining = 0  # threads waiting in drain(): only they need notifying
        self._cond = threading.Condition(threading.Lock())
        self._errors = ErrorSummary()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._running = threading.Lock()  # held while a task (or inline handlers) runs
        self._inline_thread: threading.Thread | None = None

    def _ensure_thread(self) -> None:
        if self._thread is None:
            with self._start_lock:
                if self._thread is None:
                    self._thread = threading.Thread(
                        target=self._run, name="flowjob-completion", daemon=True
                    )
                    self._thread.start()

    def in_worker(self) -> bool:
        """True on the thread that runs tasks now: the completion thread or an inline one."""
        current = threading.current_thread()
        return current is self._thread or current is self._inline_thread

    def begin_inline(self) -> bool:
        """Claims the right to run one call's handlers on this thread, in order: only when no
        task is pending or running. Must be followed by ``end_inline`` when it returns True."""
        with HOLD, self._cond:
            if self.tasks or not self._running.acquire(blocking=False):
                return False
            self.tasks += 1
            self._inline_thread = threading.current_thread()
        return True

    def end_inline(self) -> None:
        with HOLD:  # all of it or none: a claim half given back would stop every task
            self._inline_thread = None
            self._running.release()
            with self._cond:
                self.tasks -= 1
                if self._draining:
                    self._cond.notify_all()

    def submit(self, task: Callable[[], Any]) -> None:
        """Queues ``task``; if it returns a callable, that runs after its bookkeeping."""
        # Counted and queued together: a task counted but never queued would be waited for
        # forever (a Ctrl-C in between, on the main thread, is raised once both are done).
        with HOLD:
            with self._cond:
                self.tasks += 1
            self._ensure_thread()
            self._queue.put(task)

    def stop(self) -> None:
        """Ends the completion thread once the tasks queued so far have run (a cleared
        session's; nothing is submitted after)."""
        if self._thread is not None:
            self._queue.put(None)

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
                    self.tasks -= 1
                    if self._draining:
                        self._cond.notify_all()
            if wake is not None:
                # A task may hand back the wake-up of a thread waiting for it, to be done
                # last: that thread then finds the GIL free instead of sleeping again for it
                # while this one finishes its bookkeeping.
                try:
                    wake()
                except BaseException as exc:  # noqa: BLE001 - the thread must go on
                    self.record_error(exc, "waking a waiting call")

    def idle(self) -> bool:
        """True when no submitted task is waiting or running.

        Read without the lock (an int read is atomic): callers hold the session's dispatch
        lock, so no call's completion can be queued meanwhile, and a stale non-zero only
        sends a call the slower way."""
        return self.tasks == 0

    def record_error(self, exc: BaseException, where: str, as_is: bool = False) -> None:
        """Keeps ``exc`` for the next synchronisation, which raises it in a ``CallbackError``
        naming ``where``; ``as_is``: raised as itself (a program's own named failure, such
        as a Python kernel's, which a GPU reports only when the results are fetched)."""
        with self._cond:
            self._errors.add(exc, where, as_is)

    def pending(self) -> int:
        """Tasks submitted and not yet finished (for messages)."""
        return self.tasks

    def drain(self, exit_notice_s: float | None = None) -> None:
        """Waits until every task submitted so far has run.

        A Ctrl-C meanwhile (on the main thread) says what it waits for and goes on waiting,
        then raises ``KeyboardInterrupt`` once everything ran; a Ctrl-C after that notice
        abandons the wait at once. ``exit_notice_s``: the interpreter is exiting: give the
        notice unasked when the wait lasts that many seconds, and end quietly after a first
        Ctrl-C.
        """
        if self.in_worker():
            raise CallbackError(
                "flow.sync_default_session() / a blocking result was requested from inside a "
                "watch handler or result callback; it would wait for itself. Use "
                "tp.Callback / async_get inside callbacks instead"
            )
        interrupted = announced = False
        notice_at = None if exit_notice_s is None else time.monotonic() + exit_notice_s
        # HOLD holds signal handlers back instead of letting them raise inside the
        # condition's wait, where an exception could leave the lock unowned; they run
        # between two waits (HOLD.serve).
        HOLD.install()
        with HOLD:
            with self._cond:
                self._draining += 1
                try:
                    while self.tasks:
                        try:
                            self._cond.wait(_POLL_S)
                            now_interrupted = HOLD.serve()
                        except KeyboardInterrupt:
                            now_interrupted = True
                        if now_interrupted and (interrupted or announced):
                            raise KeyboardInterrupt  # "press Ctrl-C again to abandon them"
                        interrupted = interrupted or now_interrupted
                        late = notice_at is not None and time.monotonic() >= notice_at
                        if (interrupted or late) and not announced and self.tasks:
                            announced = True
                            _say(
                                f"flowjob: waiting for {self.tasks} pending deliveries "
                                "(watch handlers, summary ops, result callbacks of launched "
                                "calls); press Ctrl-C again to abandon them"
                            )
                finally:
                    self._draining -= 1
        if interrupted and exit_notice_s is None:
            raise KeyboardInterrupt

    def raise_pending(self) -> None:
        """Re-raises (once) what user callbacks raised since the last synchronisation."""
        if not self._errors.count:  # the common case, without taking the lock
            return
        with self._cond:
            errors, self._errors = self._errors, ErrorSummary()
        if errors.count:
            raise errors.error()

    def report_pending_at_exit(self) -> int:
        """Prints the errors nobody will raise any more; returns how many there were."""
        with self._cond:
            errors, self._errors = self._errors, ErrorSummary()
        if errors.count:
            _say(errors.report())
        return errors.count


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class ErrorSummary:
    """The errors of user code since the last synchronisation, bounded: the first one with
    its formatted traceback, and a count of the rest.

    Only the text of a traceback is kept: its frames would keep their locals alive (the
    watched arrays a handler received), for as long as the error waits to be raised.
    """

    __slots__ = ("first", "where", "traceback", "count", "as_is")

    def __init__(self) -> None:
        self.first: BaseException | None = None
        self.where = ""
        self.traceback = ""
        self.count = 0
        self.as_is = False

    def add(self, exc: BaseException, where: str, as_is: bool = False) -> None:
        self.count += 1
        if self.first is None:
            self.first, self.where, self.as_is = exc, where, as_is
            self.traceback = format_exception(exc)
            _drop_frames(exc)

    def error(self) -> BaseException:
        first = self.first
        more = f" (and {self.count - 1} more)" if self.count > 1 else ""
        first.add_note(f"(original traceback, its frames released)\n{self.traceback}")
        if self.as_is:
            if more:
                first.add_note(f"flowjob: {self.count - 1} more error(s) after it")
            return first
        error = CallbackError(f"{self.where} raised {type(first).__name__}: {first}{more}")
        error.__cause__ = first
        return error

    def report(self) -> str:
        more = f"\nflowjob: and {self.count - 1} more error(s)" if self.count > 1 else ""
        return f"flowjob: {self.where} raised:\n{self.traceback.rstrip()}{more}"


def _drop_frames(exc: BaseException) -> None:
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        exc.__traceback__ = None
        exc = exc.__cause__ or exc.__context__
