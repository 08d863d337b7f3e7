"""Completions kept back until their call's result callback is registered.

A call whose callback is registered after the call returns (``tp.Callback``, ``async_get``)
must not be delivered before the callback exists, or the callback would run late: after the
call's handlers were separated from it by other calls' and after later calls' callbacks.
So its completion is held, and so is every later call's (completions are queued in dispatch
order). A held call is let go when its callback is registered, when the thread that made it
launches or waits for anything else, or when any thread waits for results (a blocking call,
``.get()``, ``sync_default_session``, a slot of a full job). Such a wait from another thread
first gives the holding threads ``_GRACE_S`` to register their callbacks -- they are a few
bytecodes from doing so -- and then lets everything go: an ignored result never blocks it.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from ._interrupt import HOLD

_GRACE_S = 0.5


class _Held:
    __slots__ = ("task", "future", "owner", "ready", "seq")

    def __init__(self, task: Callable[[], Any], future: Any, owner: int, ready: bool, seq: int):
        self.task = task
        self.future = future
        self.owner = owner
        self.ready = ready
        self.seq = seq


class HeldCompletions:
    """Dispatched calls' completions, in dispatch order, waiting to be submitted."""

    def __init__(self, completion: Any) -> None:
        self._completion = completion
        self._cond = threading.Condition(threading.Lock())
        self.calls: deque[_Held] = deque()  # never rebound: runtime/_direct.py keeps it
        self._seq = itertools.count()
        self._submitted = -1  # seq of the last call submitted

    def empty(self) -> bool:
        """No call held (read without the lock: a stale answer only sends a call the slower
        way, or is made true under the dispatch lock by ``release``)."""
        return not self.calls

    def queue(self, task: Callable[[], Any], future: Any, hold: bool) -> None:
        """A dispatched call's completion (called under the dispatch lock, so in dispatch
        order); ``hold``: keep it until its callback is registered."""
        with self._cond:
            if not hold and not self.calls:  # the common case: nothing to wait behind
                self._completion.submit(task)
                return
            me = threading.get_ident()
            for held in self.calls:  # this thread moved on: its earlier calls go
                if held.owner == me:
                    held.ready = True
            self.calls.append(_Held(task, future, me, not hold, next(self._seq)))
            self._flush()

    def registered(self, future: Any) -> None:
        """The callback of ``future``'s call exists now."""
        with HOLD, self._cond:
            for held in self.calls:
                if held.future is future:
                    held.ready = True
            self._flush()

    def release(self, grace: bool = False) -> None:
        """Lets every call held so far go (a wait needs them delivered). ``grace``: first
        give other threads' held calls ``_GRACE_S`` to get their callbacks (never on the
        completion thread, which would wait for itself). A blocking call waits so under the
        dispatch lock: registering a callback does not need it, so only a thread that
        ignored its call's result and launches again waits for the grace to end."""
        with HOLD, self._cond:
            if not self.calls:
                return
            last = self.calls[-1].seq
            me = threading.get_ident()
            for held in self.calls:
                if held.owner == me:
                    held.ready = True
            self._flush()
            if grace:
                deadline = time.monotonic() + _GRACE_S
                while self._submitted < last:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    self._cond.wait(left)
            for held in self.calls:
                if held.seq <= last:
                    held.ready = True
            self._flush()

    def _flush(self) -> None:
        calls, submitted = self.calls, False
        while calls and calls[0].ready:
            held = calls.popleft()
            self._completion.submit(held.task)
            self._submitted = held.seq
            submitted = True
        if submitted:
            self._cond.notify_all()
