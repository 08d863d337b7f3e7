"""TensorBoard's Python log loader made to survive any file in the log directory.

``flowjob board`` serves TensorBoard in its own process; :func:`install` replaces, in that
process only, the pieces of TensorBoard's loader that read what they find (nothing in
site-packages is edited):

* **event files** are read by :class:`BoundedRecords` instead of TensorBoard's record reader,
  which reads a record's claimed length whole (a length field of 2^40 with a valid CRC was a
  ``MemoryError`` that killed the reloader thread) and opens a FIFO for reading (which never
  returns). Here a file is opened without blocking and read only if it is a regular file; a
  record is read only once the file really holds all of it, and a length over 2 GiB or a bad
  CRC stops that file there (the rest of the run and every other run keep updating);
* **runs** are found by :func:`run_directories`, which follows a symbolic link to a directory
  at most once (a loop such as ``up -> ..`` made TensorBoard enumerate tens of thousands of
  runs) and counts only regular files as event files;
* **the reloader** logs an error and goes on: one exception no longer stops every run from
  updating for the rest of the board's life.

Each file skipped is named once in a warning on the board's log (``flowjob.board``).
"""

from __future__ import annotations

import functools
import logging
import os
import stat
import struct
import threading

from ..summary import MAX_RECORD_BYTES, masked_crc32c

__all__ = ["BoundedRecords", "install", "run_directories", "warn_once", "regular_or_warn"]

logger = logging.getLogger("flowjob.board")
_HEADER = struct.Struct("<QI")
_U32 = struct.Struct("<I")
_warned: set[str] = set()
_warned_lock = threading.Lock()


def warn_once(key: str, message: str) -> None:
    """Logs ``message`` as a warning the first time ``key`` is seen in this process."""
    with _warned_lock:
        if key in _warned:
            return
        _warned.add(key)
    logger.warning("flowjob board: %s", message)


def regular_or_warn(path: str, what: str, limit: int | None = None) -> bool:
    """Whether ``path`` is a regular file (of at most ``limit`` bytes); a FIFO, a device, a
    socket or a file over the limit is named once in a warning and skipped (never opened).

    Examples:
        >>> regular_or_warn("/dev/null", "test file")
        False
    """
    try:
        st = os.stat(path)
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode):
        from .._files import describe_kind

        warn_once(path, f"skipping {what} {path}: it is {describe_kind(st.st_mode)}")
        return False
    if limit is not None and st.st_size > limit:
        warn_once(
            path,
            f"skipping {what} {path}: {st.st_size} bytes, more than the {limit} bytes such a "
            "file can hold (not read)",
        )
        return False
    return True


class BoundedRecords:
    """An iterator over the records of one event file, in place of TensorBoard's reader.

    ``next()`` gives the next whole record's payload, or raises ``StopIteration`` at the end of
    what is written so far (the next ``next()`` tries again from there, as TensorBoard's own
    reader does at a torn tail). Reads are positioned (``pread``) and never ask for more than
    the file holds; the file is opened only while records are read.

    Examples:
        >>> import os, tempfile
        >>> from flowjob._src.summary import frame_record
        >>> path = os.path.join(tempfile.mkdtemp(), "events.out.tfevents.1")
        >>> _ = open(path, "wb").write(frame_record(b"a") + frame_record(b"bc"))
        >>> list(BoundedRecords(path))
        [b'a', b'bc']
    """

    def __init__(self, path: str | bytes):
        self.path = os.fsdecode(path)
        self._offset = 0
        self._fd: int | None = None
        self._stopped = False  # damage, or not a regular file: nothing more is read

    def __iter__(self) -> BoundedRecords:
        return self

    def __next__(self) -> bytes:
        try:
            record = self._next()
        except Exception as exc:  # noqa: BLE001 - a reader error must not end the reloader
            warn_once(self.path, f"stopped reading {self.path} at offset {self._offset}: {exc!r}")
            self._stopped = True
            record = None
        if record is None:
            self.close()
            raise StopIteration
        return record

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _open(self) -> int | None:
        if self._fd is None:
            try:
                fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
            except OSError:
                return None  # gone or unreadable now: tried again at the next reload
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                os.close(fd)
                from .._files import describe_kind

                warn_once(
                    self.path,
                    f"skipping {self.path}: named like an event file but it is "
                    f"{describe_kind(mode)}",
                )
                self._stopped = True
                return None
            self._fd = fd
        return self._fd

    def _damage(self, why: str) -> None:
        warn_once(
            self.path,
            f"{self.path}: record at offset {self._offset}: {why}; the records before it are "
            "shown, nothing after it is read",
        )
        self._stopped = True

    def _next(self) -> bytes | None:
        if self._stopped:
            return None
        fd = self._open()
        if fd is None:
            return None
        size, start = os.fstat(fd).st_size, self._offset
        if size - start < _HEADER.size:
            return None
        header = os.pread(fd, _HEADER.size, start)
        length, length_crc = _HEADER.unpack(header)
        if masked_crc32c(header[:8]) != length_crc:
            self._damage("length CRC mismatch")
            return None
        if length > MAX_RECORD_BYTES:
            self._damage(f"length field says {length} bytes, more than an event can hold")
            return None
        if size - start < _HEADER.size + length + 4:
            return None  # not all written yet (the file holds less than the record)
        body = os.pread(fd, length + 4, start + _HEADER.size)
        if len(body) < length + 4:
            return None
        payload = body[:length]
        if masked_crc32c(payload) != _U32.unpack_from(body, length)[0]:
            self._damage("payload CRC mismatch")
            return None
        self._offset = start + _HEADER.size + length + 4
        return payload


def run_directories(top: str) -> list[str]:
    """The directories at or below ``top`` that hold a regular file named like an event
    file (``tfevents`` in the name), as TensorBoard's run discovery, except that a directory
    reached again through a symbolic link (a loop) is not entered again, and event-named
    FIFOs and devices are skipped (named once in a warning)."""
    found: list[str] = []
    seen: set[tuple[int, int]] = set()
    stack = [top]
    while stack:
        directory = stack.pop()
        try:
            st = os.stat(directory)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) in seen:
            continue
        seen.add((st.st_dev, st.st_ino))
        subdirs, is_run = [], False
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir():  # follows a link: `seen` stops loops
                            subdirs.append(entry.path)
                        elif "tfevents" in entry.name and not is_run:
                            is_run = regular_or_warn(entry.path, "event file")
                    except OSError:
                        continue
        except OSError:
            continue
        if is_run:
            found.append(directory)
        stack.extend(sorted(subdirs, reverse=True))
    return found


def _guarded(method, what: str):
    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except Exception:  # noqa: BLE001 - the reloader thread must go on
            logger.exception("flowjob board: %s failed; trying again at the next reload", what)
            return self

    guarded.__flowjob_guarded__ = True
    return guarded


def install() -> None:
    """Puts flowjob's readers in TensorBoard's Python loader (this process; idempotent)."""
    from tensorboard.backend.event_processing import (
        event_file_loader,
        io_wrapper,
        plugin_event_accumulator,
        plugin_event_multiplexer,
    )

    event_file_loader._make_tf_record_iterator = BoundedRecords

    def get_logdir_subdirectories(path):
        return run_directories(os.fsdecode(path))

    io_wrapper.GetLogdirSubdirectories = get_logdir_subdirectories
    # One run's error (an event that does not parse) ends only that run's reload, and any
    # other error only this round of reloads: the thread keeps going either way.
    for cls, name, what in (
        (plugin_event_multiplexer.EventMultiplexer, "Reload", "reading the logs"),
        (plugin_event_multiplexer.EventMultiplexer, "AddRunsFromDirectory", "finding runs"),
        (plugin_event_accumulator.EventAccumulator, "Reload", "reading a run"),
    ):
        method = getattr(cls, name)
        if not getattr(method, "__flowjob_guarded__", False):
            setattr(cls, name, _guarded(method, what))
