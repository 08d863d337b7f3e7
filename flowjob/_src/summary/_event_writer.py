"""Asynchronous TensorBoard event-file writer (one file, one background thread).

Design (see visualization.md 1.2, 1.3, 6.3 and 8):

* File name ``events.out.tfevents.%010d.<host>.<pid>.<seq><suffix>``: sorts by creation time,
  and the pid plus a process-wide sequence number (bumped again if the name exists) keep two
  writers from ever sharing a file.
* The first record is ``Event(file_version="brain.Event:2")``, written and flushed at once, so
  TensorBoard never purges data when steps go backwards and sees the file immediately.
* Callers append already-serialized ``Event`` payloads (or a callable producing one, used for
  PNG encoding off the caller's thread) to a ``collections.deque``; appends are atomic C calls,
  so logging costs no lock and blocks only while ``max_queue`` items are pending.
* One daemon thread frames the records (masked CRC-32C) into a normally buffered file and
  flushes it at least every ``flush_secs``, on :meth:`flush`/:meth:`close`, at interpreter
  exit (``atexit``) and on SIGTERM (the previous handler is chained). A hard kill loses at
  most one flush interval; readers skip the torn tail.
* An I/O error (disk full, file too large, ...) never tears the file: it is cut back to its
  last whole record (``_record_file.py``) and later writes are tried again, so logging resumes
  once space returns. The error is raised, once, from the next logging call, :meth:`flush` or
  :meth:`close` after it; :meth:`flush` and :meth:`close` also raise when records were dropped
  since the last error was raised.

File naming lives in ``_event_files.py``, the exit and SIGTERM hooks in ``_event_exit.py``.
"""

from __future__ import annotations

import collections
import errno
import os
import threading
import time
from collections.abc import Callable

from tensorboard.compat.proto import event_pb2

from ..errors import FlowJobError
from . import _run_lock
from ._event_exit import _live, _Marker, install_exit_hooks
from ._event_files import _create_file, make_logdir
from ._record_file import RecordFile
from ._records import frame_record

__all__ = ["EventFileWriter", "EventWriteError"]

_FILE_BUFFER = 64 * 1024
_IDLE_POLL_S = 0.05  # the thread also notices flush requests made from a signal handler


class EventWriteError(FlowJobError, OSError):
    """Writing an event file failed; the original ``OSError`` is the ``__cause__``."""


Payload = bytes | Callable[[], "bytes | None"]


class EventFileWriter:
    """Writes serialized ``Event`` protos to a new event file in ``logdir`` from a thread.

    Args:
        logdir: directory of the run (created if missing).
        flush_secs: the file is flushed at least this often while events arrive.
        max_queue: pending items before :meth:`add_serialized` blocks the caller.
        filename_suffix: appended to the file name.
    """

    def __init__(
        self,
        logdir: str | os.PathLike,
        flush_secs: float = 0.5,
        max_queue: int = 1024,
        filename_suffix: str = "",
    ):
        if (
            not isinstance(flush_secs, (int, float))
            or isinstance(flush_secs, bool)
            or not flush_secs > 0
        ):
            raise ValueError(
                f"EventFileWriter: flush_secs must be a number > 0, got {flush_secs!r}"
            )
        if not isinstance(max_queue, int) or isinstance(max_queue, bool) or max_queue < 1:
            raise ValueError(f"EventFileWriter: max_queue must be an int >= 1, got {max_queue!r}")
        if not isinstance(filename_suffix, str) or os.sep in filename_suffix:
            raise ValueError(
                "EventFileWriter: filename_suffix must be a str without a path "
                f"separator, got {filename_suffix!r}"
            )
        self._logdir = make_logdir(logdir)
        self._flush_secs = float(flush_secs)
        self._max_queue = max_queue
        self._half_queue = max(1, max_queue // 2)
        f, self._path = _create_file(self._logdir, filename_suffix)
        _run_lock.hold(self._logdir, f.fileno())
        version = event_pb2.Event(wall_time=time.time(), file_version="brain.Event:2")
        self._file = RecordFile(f, _FILE_BUFFER)
        error, _ = self._file.write(frame_record(version.SerializeToString()), 1)
        error = error or self._file.flush(fsync=False)[0]
        if error is not None:
            self._file.close()
            _run_lock.release(self._logdir)
            raise EventWriteError(
                error.errno, f"creating event file {self._path!r} failed: {error.strerror or error}"
            ) from error

        self._queue: collections.deque[Payload | _Marker] = collections.deque()
        self._wake = threading.Event()
        # Errors of the writer thread wait here until a caller reports them (under the lock).
        self._error_lock = threading.Lock()
        self._error: BaseException | None = None
        self._last_os_error: OSError | None = None
        self._dropped = 0
        self._reported_drops = 0
        self._attention = False  # an error awaits or closing: logging takes the slow path
        self._closed = False
        self._closing = False
        self._close_lock = threading.Lock()
        self._thread = threading.Thread(
            target=self._run, name=f"flowjob-events:{os.path.basename(self._path)}", daemon=True
        )
        self._thread.start()
        _live.add(self)
        install_exit_hooks()

    # --- public API ----------------------------------------------------------------------
    @property
    def path(self) -> str:
        """Full path of the event file."""
        return self._path

    @property
    def logdir(self) -> str:
        return self._logdir

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def pending(self) -> int:
        """Items queued but not yet written."""
        return len(self._queue)

    @property
    def dropped(self) -> int:
        """Items discarded because an earlier write failed."""
        return self._dropped

    def add_event(self, event: event_pb2.Event) -> None:
        """Queues one ``Event`` (serialized here, framed and written on the thread)."""
        self.add_serialized(event.SerializeToString())

    def add_serialized(self, payload: bytes) -> None:
        """Queues one already-serialized ``Event``."""
        q = self._queue
        if self._attention or len(q) >= self._max_queue:
            self._put(payload)  # the slow path: raises when closed or failed, waits when full
            return
        q.append(payload)
        if len(q) >= self._half_queue and not self._wake.is_set():
            self._wake.set()

    def add_deferred(self, make: Callable[[], bytes | None]) -> None:
        """Queues ``make``; the thread calls it in order and writes the ``Event`` it returns."""
        self._put(make)

    def flush(self) -> None:
        """Writes everything queued so far to the OS (and fsyncs); raises a write error not
        yet raised, or one for records dropped since the last error was raised."""
        if self._closed:
            self._raise_pending(drops=True)
            return
        marker = _Marker(fsync=True)
        self._queue.append(marker)
        self._wake.set()
        while not marker.done.wait(0.5):
            if not self._thread.is_alive():
                break
        self._raise_pending(drops=True)

    def close(self) -> None:
        """Flushes, fsyncs and closes the file, stops the thread; raises a pending write error."""
        with self._close_lock:
            if not self._closed:
                self._closing = self._attention = True
                marker = _Marker(fsync=True, close=True)
                self._queue.append(marker)
                self._wake.set()
                self._thread.join()
                self._closed = True
                _run_lock.release(self._logdir)
                _live.discard(self)
        self._raise_pending(drops=True)

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"pending={self.pending}"
        return f"EventFileWriter({self._path!r}, {state})"

    # --- caller side ---------------------------------------------------------------------
    def _put(self, item: Payload) -> None:
        if self._closing:
            raise ValueError(f"EventFileWriter for {self._path!r} is closed")
        q = self._queue
        if len(q) >= self._max_queue:
            self._wait_for_space()
        q.append(item)
        if len(q) >= self._half_queue and not self._wake.is_set():
            self._wake.set()
        # After queueing: this call's record is still tried (space may be back).
        self._raise_pending()

    def _wait_for_space(self) -> None:
        self._wake.set()
        while len(self._queue) >= self._max_queue and self._thread.is_alive():
            time.sleep(0.0005)

    def _raise_pending(self, drops: bool = False) -> None:
        """Raises the writer thread's error once; ``drops``: also records dropped since the
        last raise (what ``flush``/``close`` promise: everything logged is on disk)."""
        if self._error is None and not (drops and self._dropped > self._reported_drops):
            return
        with self._error_lock:
            self._attention = self._closing
            err, self._error = self._error, None
            new_drops = self._dropped - self._reported_drops
            self._reported_drops = self._dropped
            last = self._last_os_error
        if err is None and not new_drops:
            return
        if err is not None and not isinstance(err, OSError):
            raise RuntimeError(f"a deferred summary for {self._path!r} failed: {err!r}") from err
        cause = err if err is not None else last
        code = getattr(cause, "errno", None) or errno.EIO
        what = (
            f"writing event file {self._path!r} failed: {getattr(cause, 'strerror', None) or cause}"
            if err is not None
            else f"event file {self._path!r}: writes kept failing "
            f"({getattr(cause, 'strerror', None) or cause})"
        )
        raise EventWriteError(
            code,
            f"{what}; records written before the failure are intact, {new_drops} "
            f"record(s) were dropped since the last report ({self._dropped} in all); later "
            "writes are tried again, so logging resumes once there is space",
        ) from cause

    # --- writer thread -------------------------------------------------------------------
    def _run(self) -> None:
        q = self._queue
        next_flush = time.monotonic() + self._flush_secs
        batch: list[bytes] = []
        while True:
            worked = False
            while q:
                try:
                    item = q.popleft()
                except IndexError:
                    break
                worked = True
                if type(item) is bytes:
                    batch.append(frame_record(item))
                    if len(batch) >= 256:
                        self._write(batch)
                        # a queue that never empties must not postpone the periodic flush
                        if time.monotonic() >= next_flush:
                            self._flush_file(fsync=False)
                            next_flush = time.monotonic() + self._flush_secs
                    continue
                if batch:
                    self._write(batch)
                if isinstance(item, _Marker):
                    self._flush_file(fsync=item.fsync)
                    next_flush = time.monotonic() + self._flush_secs
                    if item.close:
                        self._close_file()
                        item.done.set()
                        return
                    item.done.set()
                else:
                    try:
                        payload = item()
                    except Exception as e:  # a deferred encoder failed: report, keep writing
                        self._report(e)
                        continue
                    if payload:
                        batch.append(frame_record(payload))
                        self._write(batch)
            if batch:
                self._write(batch)
            now = time.monotonic()
            if now >= next_flush:
                self._flush_file(fsync=False)
                next_flush = now + self._flush_secs
            if not worked:
                self._wake.wait(min(_IDLE_POLL_S, max(0.0, next_flush - now)))
                self._wake.clear()

    def _write(self, batch: list[bytes]) -> None:
        """Hands ``batch`` to the file (written once a buffer's worth is queued); empties it."""
        self._count(*self._file.write(b"".join(batch), len(batch)))
        batch.clear()

    def _flush_file(self, fsync: bool) -> None:
        self._count(*self._file.flush(fsync))

    def _close_file(self) -> None:
        self._count(*self._file.close())

    def _count(self, error: OSError | None, dropped: int) -> None:
        if dropped:
            with self._error_lock:
                self._dropped += dropped
        if error is not None:
            self._report(error)

    def _report(self, error: BaseException) -> None:
        """Keeps ``error`` for the next caller (the first of a run of failures)."""
        with self._error_lock:
            if isinstance(error, OSError):
                self._last_os_error = error
            if self._error is None:
                self._error = error
            self._attention = True
