"""Signal handlers held back while a call hands the session's state to its program and
stores the new state, so an interrupted call leaves the variables as before it or as after it.

A train step donates the variable buffers to its program: once dispatched, the old arrays
are gone and only the program's outputs hold the variables. An exception raised between the
dispatch and the store -- Python runs a signal handler between any two bytecodes of the main
thread, and a handler may raise anything: ``KeyboardInterrupt``, a timeout decorator's
``Timeout``, ``SystemExit`` from a SIGTERM handler -- would leave the session pointing at
deleted arrays. The same holds for the runtime's bookkeeping (a task counted but not queued
waits forever; a call slot or the inline delivery claimed and never given back stops every
later call). So on the main thread, inside ``HOLD`` every Python-level signal handler only
notes the signal; the handlers run, in arrival order, when the outermost section ends.

How: at each call (``HOLD.install``, a fraction of a microsecond) flowjob looks at the
handlers of the signals it watches -- the common ones (SIGINT, SIGTERM, SIGALRM, SIGVTALRM,
SIGPROF, SIGHUP, SIGUSR1, SIGUSR2, SIGQUIT) and every other signal that has had a Python
handler, found by a scan of all signals at most every ``_RECHECK_S`` -- and puts
a ``Deferred`` in front of each handler that is a Python callable. ``signal.getsignal``
then returns the ``Deferred`` (its ``__wrapped__`` is the handler); a handler installed
later is wrapped at the next call. SIGINT under Python's default handler gets flowjob's own
handler, which also serves ``WATCH`` below.

Entering a section is one C call (appending the thread's id to ``_held``: no Python frame
starts, so no handler runs in between): a ``finally`` or ``except`` clause that begins with
``with HOLD:`` always runs whole, which is how a call hands back what it claimed.

Python runs a signal handler at its next check, which may fall inside a garbage-collection
callback (JAX has one) or a ``__del__``: the ``KeyboardInterrupt`` raised there is printed
as "Exception ignored" and lost, and a training loop would go on as if Ctrl-C had not been
pressed. Along with the SIGINT handler, a ``sys.unraisablehook`` that passes everything else
to the hook it replaced keeps such a swallowed interrupt: it is raised where flowjob next ends
a section (every job call has one) or waits for its deliveries.
"""

from __future__ import annotations

import _signal
import _thread
import functools
import signal
import sys
import threading
import time
from types import TracebackType
from typing import Any

_MAIN = threading.main_thread().ident
_RECHECK_S = 0.5
# The C function: signal.getsignal's conversion to an enum costs ~0.4 us per signal, per call.
_getsignal = _signal.getsignal
_get_ident = _thread.get_ident
_monotonic = time.monotonic

# Checked at every call: the signals programs commonly catch (timers, termination, users').
_COMMON = tuple(
    int(getattr(signal, name))
    for name in (
        "SIGINT",
        "SIGTERM",
        "SIGALRM",
        "SIGVTALRM",
        "SIGPROF",
        "SIGHUP",
        "SIGUSR1",
        "SIGUSR2",
        "SIGQUIT",
    )
    if hasattr(signal, name)
)
_UNCATCHABLE = {getattr(signal, n) for n in ("SIGKILL", "SIGSTOP") if hasattr(signal, n)}
_ALL = tuple(int(s) for s in sorted(signal.valid_signals()) if s not in _UNCATCHABLE)

# The id of each thread's open sections, one entry per section (only the main thread's
# matter: Python runs handlers there alone).
_held: list[int] = []


class Deferred:
    """A user's signal handler, run at once outside a section of the main thread and when
    the outermost section ends inside one."""

    __slots__ = ("handler",)

    def __init__(self, handler: Any) -> None:
        self.handler = handler

    def __call__(self, signum: int, frame: Any) -> Any:
        if _MAIN in _held:
            HOLD.pending.append((self.handler, signum, frame))
            return None
        try:
            return self.handler(signum, frame)
        except KeyboardInterrupt as exc:  # kept if Python swallows it (see _unraisable)
            _note_interrupt(exc)
            raise

    @property
    def __wrapped__(self) -> Any:
        return self.handler

    def __repr__(self) -> str:
        return f"<flowjob: {self.handler!r}, held back while a job call stores its state>"


class _Hold:
    """``with HOLD:`` holds signal handlers back on the main thread (other threads never run
    them); a no-op elsewhere but for the bookkeeping of ``_held``."""

    __slots__ = ("pending", "watched", "expected", "rescan_at")

    # One C call (see the module's docstring): list.append of the thread's id.
    __enter__ = functools.partial(next, map(_held.append, iter(_get_ident, None)))

    def __init__(self) -> None:
        # (handler, signum, frame) in arrival order; handler None: Python's default SIGINT
        self.pending: list[tuple[Any, int, Any]] = []
        self.watched: tuple[int, ...] = _COMMON
        self.expected: tuple[Any, ...] = ()
        self.rescan_at = 0.0

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: Any
    ) -> None:
        me = _get_ident()
        _held.remove(me)
        if me == _MAIN and self.pending and _MAIN not in _held:
            self.run_pending()

    def install(self) -> None:
        """Puts a ``Deferred`` in front of every Python handler of a watched signal that
        has none (main thread; a job call does this before its sections)."""
        if _get_ident() == _MAIN and (
            tuple(map(_getsignal, self.watched)) != self.expected or _monotonic() >= self.rescan_at
        ):
            self._wrap()

    def _wrap(self) -> None:
        now = _monotonic()
        if now >= self.rescan_at:  # any other signal given a Python handler is watched from now
            seen = set(self.watched)
            found = tuple(s for s in _ALL if s not in seen and callable(_getsignal(s)))
            self.watched += found
            self.rescan_at = now + _RECHECK_S
        for signum in self.watched:
            handler = _getsignal(signum)
            if signum == signal.SIGINT and handler is signal.default_int_handler:
                replacement: Any = _handler
                _hook_unraisable()
            elif callable(handler) and type(handler) is not Deferred and handler is not _handler:
                replacement = Deferred(handler)
            else:
                continue
            try:
                _signal.signal(signum, replacement)
            except (OSError, RuntimeError, ValueError):  # not settable here: left as it is
                pass
        self.expected = tuple(map(_getsignal, self.watched))

    def run_pending(self) -> None:
        """Runs the handlers held back, in arrival order; one that raises leaves the rest
        for the end of the next section."""
        pending = self.pending
        while pending:
            handler, signum, frame = pending.pop(0)
            if handler is None:
                _raise(signum, frame)
            else:
                handler(signum, frame)

    def serve(self) -> bool:
        """Inside a wait of a section (main thread): runs the user handlers held back so far,
        whose exceptions end the wait, and tells whether Ctrl-C came under Python's default
        handler, forgetting it (the wait decides what that does)."""
        if _get_ident() != _MAIN or not self.pending:
            return False
        interrupted = False
        pending = self.pending
        while pending:
            handler, signum, frame = pending.pop(0)
            if handler is None:
                interrupted = True
                continue
            try:
                handler(signum, frame)
            except BaseException:
                if interrupted:  # not forgotten: raised when the section ends
                    pending.insert(0, (None, signal.SIGINT, None))
                raise
        return interrupted

    def acquire(self, lock: Any) -> None:
        """Takes ``lock`` (a semaphore) inside a section; a handler held back meanwhile runs,
        and a Ctrl-C raises ``KeyboardInterrupt``: a wait for a slot is not held back."""
        while not lock.acquire(timeout=0.05):
            if self.serve():
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
        if _get_ident() != _MAIN:
            return
        if self.depth == 0:
            HOLD.install()
            self.pending = False
        self.depth += 1

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if _get_ident() != _MAIN:
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

# id() of the KeyboardInterrupt a handler raised last (flowjob's, or a user's through a
# Deferred): the unraisable hook recognises it.
_raised = 0
_previous_hook: Any = None


def _handler(signum: int, frame: Any) -> None:
    """SIGINT in place of Python's default handler."""
    if _MAIN in _held:
        HOLD.pending.append((None, signum, frame))
        return
    if WATCH.depth:
        WATCH.note(signum, frame)
        return
    _raise(signum, frame)


def _raise(signum: int, frame: Any) -> None:
    try:
        signal.default_int_handler(signum, frame)
    except KeyboardInterrupt as exc:
        _note_interrupt(exc)
        raise


def _note_interrupt(exc: KeyboardInterrupt) -> None:
    global _raised
    _raised = id(exc)
    _hook_unraisable()


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
        # (Only an interrupt: another exception that Python swallowed, a timeout's, say,
        # belongs to a moment gone by.)
        HOLD.pending.append((None, signal.SIGINT, None))
        return
    (_previous_hook or sys.__unraisablehook__)(info)


# Frames of flowjob's own that call a signal handler.
_CALLERS = frozenset(
    {
        Deferred.__call__.__code__,
        _Hold.run_pending.__code__,
        _Hold.serve.__code__,
    }
)


def raised_by_signal(exc: BaseException) -> bool:
    """Whether ``exc`` came from a signal handler (the user's timeout, say) rather than from
    the code it interrupted: then it is the caller's, to be raised as itself, never reported
    as a failure of the program or of a watch handler. Recognised by its traceback: a frame
    flowjob runs handlers from, or a handler's own frame (its last two arguments are the
    signal number and the frame it interrupted, which called it)."""
    if isinstance(exc, KeyboardInterrupt):
        return True
    tb: TracebackType | None = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        code = frame.f_code
        if code in _CALLERS:
            return True
        if code.co_argcount >= 2:
            names = code.co_varnames[: code.co_argcount]
            args = frame.f_locals
            caller = frame.f_back
            if caller is not None and args.get(names[-1]) is caller:
                if type(args.get(names[-2])) is int:
                    return True
        tb = tb.tb_next
    return False
