"""TFRecord framing: golden bytes (visualization.md 1.1), CRC checks, torn tails."""

from __future__ import annotations

import io
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tensorboard.backend.event_processing.event_file_loader import RawEventFileLoader
from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.compat.tensorflow_stub import pywrap_tensorflow as tb_stub

from flowjob._src.summary._records import (
    RecordCorruptError,
    crc32c,
    frame_record,
    masked_crc32c,
    read_records,
)

GOLDEN_VERSION = bytes.fromhex(
    "1800000000000000a37f4b2209000000000000f03f1a0d627261696e2e4576656e743a3286bf577a"
)
GOLDEN_SCALAR = bytes.fromhex(
    "1a00000000000000129bd82d09000000000000f03f10022a0d0a0b0a046c6f7373150000003f9714c071"
)


def test_crc_golden_values():
    assert crc32c(b"123456789") == 0xE3069283
    assert masked_crc32c(b"") == 0xA282EAD8
    assert masked_crc32c(bytes(8)) == 0x07980329


def test_frame_golden_events():
    version = event_pb2.Event(wall_time=1.0, file_version="brain.Event:2")
    assert frame_record(version.SerializeToString()) == GOLDEN_VERSION
    scalar = event_pb2.Event(
        wall_time=1.0,
        step=2,
        summary=summary_pb2.Summary(
            value=[summary_pb2.Summary.Value(tag="loss", simple_value=0.5)]
        ),
    )
    assert frame_record(scalar.SerializeToString()) == GOLDEN_SCALAR


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300))
def test_masked_crc_matches_tensorboards_pure_python_crc(data):
    assert masked_crc32c(data) == tb_stub.masked_crc32c(data)


def test_reader_round_trip_and_tensorboard_reads_our_framing(tmp_path):
    payloads = [b"", b"a", bytes(range(256)) * 40, b"x" * 7]
    path = tmp_path / "events.out.tfevents.test"
    path.write_bytes(b"".join(frame_record(p) for p in payloads))
    with open(path, "rb") as f:
        assert list(read_records(f)) == payloads
    assert list(RawEventFileLoader(str(path)).Load()) == payloads


def test_torn_tail_stops_cleanly_at_every_cut_and_resumes():
    payloads = [b"first record", b"second", b"the third and last record"]
    full = b"".join(frame_record(p) for p in payloads)
    last_start = len(full) - len(frame_record(payloads[-1]))
    for cut in range(last_start, len(full)):
        f = io.BytesIO(full[:cut])
        assert list(read_records(f)) == payloads[:-1], cut
        assert f.tell() == last_start  # positioned to resume at the torn record
        # the missing bytes arrive: reading continues from there
        f.seek(0, os.SEEK_END)
        f.write(full[cut:])
        f.seek(last_start)
        assert list(read_records(f)) == payloads[-1:]


@pytest.mark.parametrize("where", ["length_crc", "payload", "payload_crc"])
def test_corrupt_complete_record_is_detected(where):
    payloads = [b"good", b"will be damaged", b"after"]
    data = bytearray(b"".join(frame_record(p) for p in payloads))
    start = len(frame_record(payloads[0]))
    offset = {
        "length_crc": start + 9,
        "payload": start + 12 + 3,
        "payload_crc": start + 12 + len(payloads[1]) + 1,
    }[where]
    data[offset] ^= 0x40
    with pytest.raises(RecordCorruptError, match="CRC mismatch"):
        list(read_records(io.BytesIO(bytes(data))))
    # non-strict: stop at the bad record, keep what came before
    assert list(read_records(io.BytesIO(bytes(data)), strict=False)) == payloads[:1]


@settings(max_examples=100, deadline=None)
@given(
    tag=st.text(min_size=1, max_size=200),
    value=st.floats(width=32, allow_nan=False),
    step=st.integers(-(2**63), 2**63 - 1),
    wall=st.floats(min_value=1.0, max_value=1e12),
)  # a real time.time(), never proto3's 0
def test_scalar_wire_encoding_equals_protobuf(tag, value, step, wall):
    from flowjob._src.summary._scalar import scalar_event_bytes, scalar_tag_prefix

    ref = event_pb2.Event(
        wall_time=wall,
        step=step,
        summary=summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, simple_value=value)]),
    ).SerializeToString()
    assert scalar_event_bytes(scalar_tag_prefix(tag.encode()), value, step, wall) == ref
