"""Direct wire encoding of scalar events (the hot path: several times cheaper than protos).

``Event{wall_time=1, step=2, summary=5{value=1{tag=1, simple_value=2}}}``, fields in
field-number order exactly as protobuf serializes them; the unit tests compare the bytes with
``event_pb2.Event(...).SerializeToString()``. Everything after the step depends only on the
tag, so it is built once per tag (:func:`scalar_tag_prefix`).
"""

from __future__ import annotations

import math
import struct

__all__ = ["scalar_tag_prefix", "scalar_event_bytes", "to_float32", "F32_MAX"]

_HEAD = struct.Struct("<Bd").pack  # field 1 (wall_time, fixed64) key 0x09 + the double
_F = struct.Struct("<f").pack
F32_MAX = 3.4028234663852886e38


def _varint(n: int) -> bytes:
    if n < 0:
        n += 1 << 64  # int64 fields encode negatives as 10-byte two's complement
    if n < 0x80:
        return bytes((n,))
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def to_float32(v: float) -> float:
    """``v`` as float32 would hold it (values beyond float32's range become +/-inf)."""
    if v != v or -F32_MAX <= v <= F32_MAX:
        return v
    try:  # values in the rounding gap just above float32's max still round to max
        return struct.unpack("<f", _F(v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)


def scalar_tag_prefix(tag: bytes) -> bytes:
    """The bytes of ``summary`` up to the float: ``2a L 0a L 0a len tag 15``."""
    value_head = b"\x0a" + _varint(len(tag)) + tag + b"\x15"
    value_len = len(value_head) + 4
    summary_len = 1 + len(_varint(value_len)) + value_len
    return b"\x2a" + _varint(summary_len) + b"\x0a" + _varint(value_len) + value_head


def scalar_event_bytes(prefix: bytes, value: float, step: int, wall_time: float) -> bytes:
    """Serialized ``Event`` with one ``simple_value`` (``value`` must fit float32)."""
    if step == 0:  # proto3 omits a default field
        return _HEAD(9, wall_time) + prefix + _F(value)
    if 0 < step < 0x80:
        return _HEAD(9, wall_time) + bytes((0x10, step)) + prefix + _F(value)
    return _HEAD(9, wall_time) + b"\x10" + _varint(step) + prefix + _F(value)
