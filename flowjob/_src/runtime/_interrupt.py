"""Ctrl-C held back while a call hands the session's state to its program and stores the
new state, so an interrupted call leaves the variables as before it or as after it.

A train step donates the variable buffers to its program: once dispatched, the old arrays
are gone and only the program's outputs hold the variables. A ``KeyboardInterrupt`` raised
between the dispatch and the store (Python raises it between any two bytecodes of the main
thread) would leave the session pointing at deleted arrays. Inside ``HOLD`` the SIGINT
handler only notes the signal; the interrupt is raised when the outermost section ends.

The handler is put in place when a section runs on the main thread while SIGINT has
Python's default handler, and outside a section it raises ``KeyboardInterrupt`` as the
default one does. A handler the user installed is left alone: it decides what Ctrl-C does,
and one that raises is its author's choice. Which handler is installed is looked up at most
every ``_RECHECK_S`` (``signal.getsignal`` costs microseconds, a section runs per call).
"""

from __future__ import annotations

import signal
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
        if self.depth == 0 and time.monotonic() >= self.recheck_at:
            if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
                signal.signal(signal.SIGINT, _handler)
            self.recheck_at = time.monotonic() + _RECHECK_S
        self.depth += 1

    def __exit__(self, *exc: object) -> None:
        if threading.get_ident() != _MAIN:
            return
        self.depth -= 1
        if self.depth == 0 and self.pending is not None:
            signum, frame = self.pending
            self.pending = None
            signal.default_int_handler(signum, frame)  # raises KeyboardInterrupt

    def acquire(self, lock: Any) -> None:
        """Takes ``lock`` (a semaphore) inside a section, giving up with ``KeyboardInterrupt``
        if Ctrl-C comes meanwhile: a wait for a slot is not held back."""
        while not lock.acquire(timeout=0.05):
            if self.pending is not None:
                self.pending = None
                raise KeyboardInterrupt


HOLD = _Hold()


def _handler(signum: int, frame: Any) -> None:
    if HOLD.depth:
        HOLD.pending = (signum, frame)
        return
    signal.default_int_handler(signum, frame)
