"""Process exit for the event writers: ``atexit`` closes every live writer (after draining
the runtime's jobs) and SIGTERM flushes them (the previous handler is chained).

Holds the registry of live writers and the queue item that asks a writer's thread to flush;
``_event_writer.py`` registers each writer here.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
import time
import traceback
import weakref

from .._exit_status import mark_exit_failure

_SIGNAL_FLUSH_TIMEOUT_S = 5.0

_live: weakref.WeakSet = weakref.WeakSet()  # the open EventFileWriters
_hooks_lock = threading.Lock()
_atexit_installed = False
_sigterm_installed = False
_previous_sigterm: object = None


class _Marker:
    """A queue item asking the thread to flush (and maybe close) and then signal ``done``."""

    __slots__ = ("done", "fsync", "close")

    def __init__(self, fsync: bool = True, close: bool = False):
        self.done = threading.Event()
        self.fsync = fsync
        self.close = close


# --- process exit: atexit and SIGTERM -------------------------------------------------------
def _drain_jobs() -> None:
    # Jobs still in flight deliver their summary host ops on the runtime's completion thread;
    # the runtime's own atexit hook was registered first, so it would run after this one and
    # write into closed writers. Drain it here first (runtime/ sits below summary/).
    runtime = sys.modules.get("flowjob._src.runtime")
    sync = getattr(runtime, "sync_default_session", None)
    if sync is None:
        return
    try:
        sync()
    except BaseException as e:  # a handler failed earlier; say so rather than lose it
        print("flowjob: while finishing jobs at exit:", file=sys.stderr)
        traceback.print_exception(type(e), e, e.__traceback__, file=sys.stderr)
        mark_exit_failure()


def _close_all_at_exit() -> None:
    _drain_jobs()
    for w in list(_live):
        try:
            w.close()
        except Exception as e:  # nothing to raise to at exit; say it instead of losing it
            print(f"flowjob.summary: {e}", file=sys.stderr)
            mark_exit_failure()


def _flush_all_from_signal() -> None:
    # Runs inside a signal handler: only deque appends (atomic, lock-free) and waits on fresh
    # events, so it cannot deadlock on a lock the interrupted code holds; bounded in time.
    markers = []
    for w in list(_live):
        if not w._closed and w._thread.is_alive():
            m = _Marker(fsync=True)
            w._queue.append(m)
            markers.append(m)
    deadline = time.monotonic() + _SIGNAL_FLUSH_TIMEOUT_S
    for m in markers:
        m.done.wait(max(0.0, deadline - time.monotonic()))


def _on_sigterm(signum, frame) -> None:
    _flush_all_from_signal()
    prev = _previous_sigterm
    if callable(prev):
        prev(signum, frame)
    elif prev == signal.SIG_IGN:
        return
    else:  # SIG_DFL (or unknown): die by SIGTERM as the process would have without us
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)


def install_exit_hooks() -> None:
    global _atexit_installed, _sigterm_installed, _previous_sigterm
    if _atexit_installed and _sigterm_installed:
        return
    with _hooks_lock:
        if not _atexit_installed:
            atexit.register(_close_all_at_exit)
            _atexit_installed = True
        # signal.signal only works from the main thread; a writer created elsewhere (e.g. the
        # runtime's completion thread) leaves installation to a later main-thread writer.
        if not _sigterm_installed and threading.current_thread() is threading.main_thread():
            try:
                _previous_sigterm = signal.getsignal(signal.SIGTERM)
                signal.signal(signal.SIGTERM, _on_sigterm)
                _sigterm_installed = True
            except (ValueError, OSError):
                pass
