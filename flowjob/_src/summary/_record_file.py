"""An event file that only ever holds whole records, even when a write fails part-way.

A full disk (ENOSPC), a file-size limit (EFBIG) or a quota stops a write in the middle of a
record. Appending later records behind that torn one would hide them from every reader
(TensorBoard stops at the first bad record), so after a failed write the file is cut back to
the end of its last whole record; the records that did not make it are dropped and counted.
The next write is tried normally, so logging resumes by itself once space returns.
"""

from __future__ import annotations

import os
import struct
from typing import BinaryIO

__all__ = ["RecordFile"]

_LENGTH = struct.Struct("<Q")
_FRAMING = 16  # uint64 length, uint32 crc, payload, uint32 crc


def _whole_records(data: bytes, size: int) -> tuple[int, int]:
    """(bytes, count) of the complete framed records at the start of ``data[:size]``."""
    pos = count = 0
    while pos + _FRAMING <= size:
        end = pos + _FRAMING + _LENGTH.unpack_from(data, pos)[0]
        if end > size:
            break
        pos, count = end, count + 1
    return pos, count


class RecordFile:
    """Buffers framed records and writes them with unbuffered writes to ``f``.

    Used from one thread only. ``write``/``flush``/``close`` never raise an ``OSError``: they
    return ``(error, records dropped)`` so the owner can report it to its callers. A failed
    write returns its error only when it starts a run of failures: while the disk stays full,
    later writes are still tried, but only their dropped records are returned.
    """

    def __init__(self, f: BinaryIO, buffer_bytes: int):
        self._f = f
        self._limit = buffer_bytes
        self._chunks: list[bytes] = []
        self._records = 0
        self._bytes = 0
        self._end = f.tell()  # end of the last whole record on disk
        self.failing = False  # the last write failed (cleared by the next that succeeds)
        self.broken = False  # a torn record could not be cut off: nothing more is written

    def write(self, chunk: bytes, records: int) -> tuple[OSError | None, int]:
        """Queues ``records`` framed records; writes once a buffer's worth is queued."""
        if self.broken:
            return None, records
        self._chunks.append(chunk)
        self._records += records
        self._bytes += len(chunk)
        if self._bytes >= self._limit:
            return self.flush(fsync=False)
        return None, 0

    def flush(self, fsync: bool) -> tuple[OSError | None, int]:
        """Writes everything buffered (and fsyncs); (error, records dropped)."""
        if self.broken:
            dropped, self._records = self._records, 0
            self._chunks.clear()
            self._bytes = 0
            return None, dropped
        error, dropped = self._write_buffer()
        if error is None and fsync:
            try:
                os.fsync(self._f.fileno())
            except OSError as e:
                error = e
        return error, dropped

    def close(self) -> tuple[OSError | None, int]:
        error, dropped = self.flush(fsync=True)
        try:
            self._f.close()
        except OSError as e:
            error = error or e
        return error, dropped

    def _write_buffer(self) -> tuple[OSError | None, int]:
        if not self._chunks:
            return None, 0
        data = self._chunks[0] if len(self._chunks) == 1 else b"".join(self._chunks)
        records = self._records
        self._chunks.clear()
        self._records = self._bytes = 0
        view = memoryview(data)
        done = 0
        try:
            while done < len(data):
                done += self._f.write(view[done:])
        except OSError as e:
            first = not self.failing
            return (e if first else None), records - self._cut_back(data)
        self._end += len(data)
        self.failing = False
        return None, 0

    def _cut_back(self, data: bytes) -> int:
        """After a failed write: keeps the whole records that reached the file and cuts off
        the torn one; returns how many were kept."""
        self.failing = True
        try:
            on_disk = self._f.tell() - self._end
        except OSError:
            on_disk = 0
        kept_bytes, kept = _whole_records(data, min(max(on_disk, 0), len(data)))
        try:
            self._f.truncate(self._end + kept_bytes)
            self._f.seek(self._end + kept_bytes)
        except OSError:
            self.broken = True  # later records would sit behind a torn one, unreadable
            return kept
        self._end += kept_bytes
        return kept
