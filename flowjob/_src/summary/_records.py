"""TFRecord framing of event files: masked CRC-32C, writer and validating reader.

Each record is ``uint64 length | uint32 masked_crc(length) | payload | uint32 masked_crc(payload)``,
all little-endian. The CRC is CRC-32C (Castagnoli) from ``google_crc32c``'s C implementation.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from typing import BinaryIO

import google_crc32c

from ..errors import FlowJobError

__all__ = [
    "crc32c",
    "masked_crc32c",
    "frame_record",
    "read_records",
    "RecordCorruptError",
    "MAX_RECORD_BYTES",
]

_MASK_DELTA = 0xA282EAD8
_U64 = struct.Struct("<Q")
_U32 = struct.Struct("<I")
_HEADER = struct.Struct("<QI")
_crc = google_crc32c.value
# An event is one protobuf message, which cannot exceed 2 GiB: a longer length field is damage
# (never a record still being written), whatever the file's size.
MAX_RECORD_BYTES = (1 << 31) - 1


class RecordCorruptError(FlowJobError, ValueError):
    """A complete record whose length or payload CRC does not match, or whose length field
    no event can have (not a torn tail); names the file (when the stream has a name) and
    the record's offset (``.offset``; ``.detail``: what is wrong there)."""

    def __init__(self, f: BinaryIO, offset: int, detail: str):
        name = getattr(f, "name", None)
        self.file = name if isinstance(name, str) else None
        self.offset, self.detail = offset, detail
        where = f"{self.file}: " if self.file else ""
        super().__init__(f"{where}record at offset {offset}: {detail}")


def crc32c(data: bytes) -> int:
    """Plain CRC-32C of ``data``."""
    return _crc(data)


def masked_crc32c(data: bytes) -> int:
    """TFRecord's masked CRC: rotate the CRC-32C right by 15 bits, then add ``0xA282EAD8``."""
    crc = _crc(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def _mask(crc: int) -> int:
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


_header_cache: dict[int, bytes] = {}


def _header(n: int) -> bytes:
    length = _U64.pack(n)
    header = length + _U32.pack(_mask(_crc(length)))
    if len(_header_cache) < 4096:  # events of one kind repeat a few lengths
        _header_cache[n] = header
    return header


def frame_record(payload: bytes) -> bytes:
    """Returns ``payload`` framed as one TFRecord."""
    n = len(payload)
    crc = _crc(payload)
    return b"".join(
        (
            _header_cache.get(n) or _header(n),
            payload,
            _U32.pack((((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF),
        )
    )


def _remaining(f: BinaryIO, start: int) -> int | None:
    """Bytes after ``start`` in ``f`` (its real size now), or None when it cannot be told."""
    try:
        return os.fstat(f.fileno()).st_size - start
    except (OSError, AttributeError, ValueError):
        pass
    try:
        here = f.tell()
        end = f.seek(0, os.SEEK_END)
        f.seek(here)
        return end - start
    except (OSError, AttributeError, ValueError):
        return None


def read_records(f: BinaryIO, *, strict: bool = True) -> Iterator[bytes]:
    """Yields the payloads of the complete records in ``f``.

    Reading stops cleanly at a torn tail (a last record cut short, as left by a killed writer);
    the stream position is then left at the start of that record so a later call can resume once
    more bytes arrive. Nothing is read past the file's real size: a record whose length field
    says more than the file holds is a torn tail, and one over :data:`MAX_RECORD_BYTES` is
    damage. A complete record with a wrong CRC, or such a length, raises
    :class:`RecordCorruptError` naming the file and the offset when ``strict`` (otherwise
    reading stops there).

    Examples:
        >>> import io
        >>> list(read_records(io.BytesIO(frame_record(b"a") + frame_record(b"bc"))))
        [b'a', b'bc']
    """
    while True:
        start = f.tell()
        header = f.read(_HEADER.size)
        if len(header) < _HEADER.size:
            f.seek(start)
            return
        length, length_crc = _HEADER.unpack(header)
        if _mask(_crc(header[:8])) != length_crc:
            if strict:
                raise RecordCorruptError(
                    f,
                    start,
                    "length CRC mismatch "
                    f"(stored {length_crc:#010x}, computed {_mask(_crc(header[:8])):#010x})",
                )
            f.seek(start)
            return
        if length > MAX_RECORD_BYTES:
            if strict:
                raise RecordCorruptError(
                    f,
                    start,
                    f"length field says {length} "
                    f"bytes, more than an event can hold ({MAX_RECORD_BYTES}); the file is "
                    "damaged there (nothing was read)",
                )
            f.seek(start)
            return
        remaining = _remaining(f, start)
        if remaining is not None and length + _HEADER.size + 4 > remaining:
            f.seek(start)  # a torn tail: the rest has not been written (yet)
            return
        body = f.read(length + 4)
        if len(body) < length + 4:
            f.seek(start)
            return
        payload = body[:length]
        (payload_crc,) = _U32.unpack(body[length:])
        if _mask(_crc(payload)) != payload_crc:
            if strict:
                raise RecordCorruptError(
                    f,
                    start,
                    "payload CRC mismatch "
                    f"(stored {payload_crc:#010x}, computed {_mask(_crc(payload)):#010x})",
                )
            f.seek(start)
            return
        yield payload
