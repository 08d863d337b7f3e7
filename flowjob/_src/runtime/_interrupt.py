"""Ctrl-C held back while a call hands the session's state to its program and stores the
new state, so an interrupted call leaves the variables as before it or as after it.

A train step donates the variable buffers to its program: once dispatched, the old arrays
are gone and only the program's outputs hold the variables. A ``KeyboardInterrupt`` raised
between the dispatch and the store (Python raises it between any two bytecodes of the main
thread) would leave the session pointing at deleted arrays. The same holds for the runtime's
bookkeeping (a task counted but not queued waits forever; a call queued twice releases its
slot twice). Inside ``HOLD`` the SIGINT handler only notes the signal; the interrupt is
raised when the outermost section ends.

The handler is put in place when a section runs on the main thread while SIGINT has
Python's default handler, and outside a section it raises ``KeyboardInterrupt`` as the
default one does. A handler the user installed is left alone: it decides what Ctrl-C does,
and one that raises is its author's choice. Which handler is installed is looked up at most
every ``_RECHECK_S`` (``signal.getsignal`` costs microseconds, a section runs per call).

Python runs a signal handler at its next check, which may fall inside a garbage-collection
callback (JAX has one) or a ``__del__``: the ``KeyboardInterrupt`` raised there is printed
as "Exception ignored" and lost, and a training loop would go on as if Ctrl-C had not been
pressed. Along with the handler, a ``sys.unraisablehook`` that passes everything else to the
hook it replaced keeps such a swallowed interrupt: it is raised where flowjob next ends a
section (every job call has one) or waits for its deliveries.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from typing import Any

_MAIN = threading.main_thread().ident
_RECHECK_S = 0.5


class _Hold:
    """``with HOLD:`` holds Ctrl-C back on the main thread (other threads never get it)."""

    __slots__ = ("depth", "pending", "recheck_at")

    def __init__(self) -> None:
        self.depth = 0
        self.pending: tuple[int, Any] | None = None
        self.recheck_at = 0.0

    def __enter__(self) -> None:
        if threading.get_ident() != _MAIN:
            return
        if self.depth == 0:
            self.install()
        self.depth += 1

    def install(self) -> None:
        """Puts the handler in place if SIGINT has Python's default one (main thread)."""
        if time.monotonic() >= self.recheck_at:
            if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
                signal.signal(signal.SIGINT, _handler)
                _hook_unraisable()
            self.recheck_at = time.monotonic() + _RECHECK_S

    def __exit__(self, *exc: object) -> None:
        if threading.get_ident() != _MAIN:
            return
        self.depth -= 1
        if self.depth == 0 and self.pending is not None:
            signum, frame = self.pending
            self.pending = None
            _raise(signum, frame)

    def take(self) -> bool:
        """Whether Ctrl-C came during this section (main thread only), forgetting it: for a
        wait inside a section that decides itself what an interrupt does."""
        if self.pending is None or threading.get_ident() != _MAIN:
            return False
        self.pending = None
        return True

    def acquire(self, lock: Any) -> None:
        """Takes ``lock`` (a semaphore) inside a section, giving up with ``KeyboardInterrupt``
        if Ctrl-C comes meanwhile: a wait for a slot is not held back."""
        while not lock.acquire(timeout=0.05):
            if self.take():
                raise KeyboardInterrupt


HOLD = _Hold()


class _Watch:
    """``with WATCH:`` around JAX's tracing and compiling. JAX is not written to be
    interrupted anywhere: it catches every exception at places (a bare ``except:`` around
    reading a compiled program's layouts: the interrupt was lost), and a trace interrupted at
    the wrong point left JAX's trace state broken for the next job. So a first Ctrl-C is
    noted, said, and raised as the section ends; a second one is raised at once."""

    __slots__ = ("depth", "pending")

    def __init__(self) -> None:
        self.depth = 0
        self.pending = False

    def __enter__(self) -> None:
        if threading.get_ident() != _MAIN:
            return
        if self.depth == 0:
            HOLD.install()
            self.pending = False
        self.depth += 1

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if threading.get_ident() != _MAIN:
            return
        self.depth -= 1
        if self.depth == 0 and self.pending:
            self.pending = False
            if exc_type is None or not issubclass(exc_type, KeyboardInterrupt):
                raise KeyboardInterrupt from exc

    def note(self, signum: int, frame: Any) -> None:
        if self.pending:  # the second Ctrl-C: at once
            self.pending = False
            _raise(signum, frame)
        self.pending = True
        print(
            "flowjob: Ctrl-C: stopping once JAX has finished tracing or compiling this job; "
            "press Ctrl-C again to stop at once",
            file=sys.stderr,
            flush=True,
        )


WATCH = _Watch()

# id() of the KeyboardInterrupt the handler raised last: the unraisable hook recognises it.
_raised = 0
_previous_hook: Any = None


def _handler(signum: int, frame: Any) -> None:
    if HOLD.depth:
        HOLD.pending = (signum, frame)
        return
    if WATCH.depth:
        WATCH.note(signum, frame)
        return
    _raise(signum, frame)


def _raise(signum: int, frame: Any) -> None:
    global _raised
    try:
        signal.default_int_handler(signum, frame)
    except KeyboardInterrupt as exc:
        _raised = id(exc)
        raise


def _hook_unraisable() -> None:
    global _previous_hook
    if sys.unraisablehook is not _unraisable:
        _previous_hook = sys.unraisablehook
        sys.unraisablehook = _unraisable


def _unraisable(info: Any) -> None:
    global _raised
    if info.exc_type is KeyboardInterrupt and id(info.exc_value) == _raised:
        _raised = 0
        # Raised when flowjob next ends a section (every job call has one) or waits. Not
        # re-signalled: Python would run the handler inside this hook, again unraisable.
        HOLD.pending = (signal.SIGINT, None)
        return
    (_previous_hook or sys.__unraisablehook__)(info)
